for (int i = 0; i < H - 3; i += 1)
  if (2 * floord(i + W - 7, 2) >= i - 3)
    for (int j = (i + 1) % 2; j < W - 3; j += 2)
      S(i, j);
