for (int b = 0; b <= 4; b += 1)
  S(0, 0, 0, b);
for (int a = 1; a <= 4; a += 1)
  S(0, 0, a, 0);
for (int w = 1; w <= 3; w += 1)
  for (int b = 0; b <= 4; b += 1)
    S(0, w, 0, b);
for (int w = 4; w <= 5; w += 1) {
  for (int b = 0; b <= 4; b += 1)
    S(0, w, 0, b);
  for (int a = 1; a <= 4; a += 1)
    for (int b = -2 * w + 11; b <= 4; b += 1)
      S(0, w, a, b);
}
for (int h = 1; h <= 3; h += 1) {
  for (int a = 0; a <= 4; a += 1)
    S(h, 0, a, 0);
  for (int w = 4; w <= 5; w += 1)
    for (int a = 0; a <= 4; a += 1)
      for (int b = -2 * w + 11; b <= 4; b += 1)
        S(h, w, a, b);
}
for (int h = 4; h <= 5; h += 1) {
  for (int a = 0; a <= -2 * h + 10; a += 1)
    S(h, 0, a, 0);
  for (int a = -2 * h + 11; a <= 4; a += 1)
    for (int b = 0; b <= 4; b += 1)
      S(h, 0, a, b);
  for (int w = 1; w <= 3; w += 1)
    for (int a = -2 * h + 11; a <= 4; a += 1)
      for (int b = 0; b <= 4; b += 1)
        S(h, w, a, b);
  for (int w = 4; w <= 5; w += 1) {
    for (int a = 0; a <= -2 * h + 10; a += 1)
      for (int b = -2 * w + 11; b <= 4; b += 1)
        S(h, w, a, b);
    for (int a = -2 * h + 11; a <= 4; a += 1)
      for (int b = 0; b <= 4; b += 1)
        S(h, w, a, b);
  }
}
