for (int i = 0; i < N; i += 1)
  for (int j = i; j < N; j += 2)
    S(i, j);
