for (int w = 0; w <= 7; w += 1)
  Border(0, w);
for (int h = 1; h <= 6; h += 1) {
  Border(h, 0);
  for (int w = 1; w <= 6; w += 1)
    Interior(h, w);
  Border(h, 7);
}
for (int w = 0; w <= 7; w += 1)
  Border(7, w);
