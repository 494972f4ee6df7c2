if (W >= 4 && UB1 >= 2 && W >= LB1 + 2 && UB1 >= LB1)
  for (int i = max(1, LB0); i <= min(H - 3, UB0); i += 1)
    for (int j = max(2, LB1); j <= min(W - 2, UB1); j += 1)
      S(i, j);
