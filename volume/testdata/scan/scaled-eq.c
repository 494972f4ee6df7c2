for (int i = 0; i <= 8; i += 2)
  S(i, floord(i, 2));
