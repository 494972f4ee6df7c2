if (P >= 1)
  for (int i = 0; i < M; i += 1)
    for (int j = i; j < M; j += 1)
      for (int k = 0; k < P; k += 1)
        S(i, j, k);
