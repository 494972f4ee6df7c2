if (H >= 1)
  for (int h = 0; h <= min(5, floord(H, 2)); h += 1)
    for (int w = 0; w <= min(5, floord(H, 2)); w += 1)
      for (int a = max(0, -2 * h + 1); a <= min(4, -2 * h + H); a += 1)
        for (int b = max(0, -2 * w + 1); b <= min(4, -2 * w + H); b += 1)
          S(h, w, a, b);
