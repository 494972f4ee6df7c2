for (int i = 0; i <= 8; i += 1)
  for (int j = 0; j <= 7; j += 1)
    S(i, j);
