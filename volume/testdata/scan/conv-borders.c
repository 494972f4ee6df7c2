for (int f = 0; f <= 1; f += 1) {
  for (int w = 0; w <= 7; w += 1)
    S(0, f, 0, w);
  for (int h = 1; h <= 6; h += 1) {
    S(0, f, h, 0);
    S(0, f, h, 7);
  }
  for (int w = 0; w <= 7; w += 1)
    S(0, f, 7, w);
}
