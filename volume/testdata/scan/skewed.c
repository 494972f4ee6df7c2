for (int i = 0; i < N; i += 1)
  for (int j = i; j <= i + 3; j += 1)
    S(i, j);
