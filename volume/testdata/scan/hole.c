for (int i = 0; i <= 2; i += 1)
  for (int j = 0; j <= 9; j += 1)
    S(i, j);
for (int i = 3; i <= 5; i += 1) {
  for (int j = 0; j <= 3; j += 1)
    S(i, j);
  for (int j = 7; j <= 9; j += 1)
    S(i, j);
}
for (int i = 6; i <= 9; i += 1)
  for (int j = 0; j <= 9; j += 1)
    S(i, j);
