for (int i = 0; i <= 9; i += 1)
  if (i % 4 <= 1)
    for (int j = 0; j <= 9; j += 1)
      S(i, j);
