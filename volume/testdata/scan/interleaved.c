for (int i = 0; i <= 9; i += 1) {
  if (i % 2 == 0)
    Even(i);
  if (i % 2 == 1)
    Odd(i);
}
