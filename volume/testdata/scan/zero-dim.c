if (N >= 2)
  S();
