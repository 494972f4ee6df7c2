for (int i = 0; i <= 9; i += 1)
  for (int j = ceild(i - 6, 2); j <= floord(i + 2, 3); j += 1)
    S(i, j);
