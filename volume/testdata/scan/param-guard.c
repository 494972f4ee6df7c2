if (N >= 5)
  for (int i = 0; i < N; i += 1)
    S(i);
