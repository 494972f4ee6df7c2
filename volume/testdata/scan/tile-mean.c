for (int i = 64; i <= 128; i += 1)
  for (int j = 66; j <= 127; j += 1)
    S(i, j);
