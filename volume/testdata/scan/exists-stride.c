for (int i = 1; i <= 19; i += 4)
  S(i);
