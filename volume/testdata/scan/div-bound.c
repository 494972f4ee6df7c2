for (int i = 0; i <= 4; i += 1)
  for (int j = 3 * i + i % 2; j <= 3 * i + 2; j += 2)
    S(i, j);
