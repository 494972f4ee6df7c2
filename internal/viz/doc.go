// Package viz draws what graphc did: the graph as Graphviz DOT with each op coloured by the
// fraction of its iterations DIE removed, and an op's iteration domain as an SVG picture of a 2-D
// projection with live and dead points in different colours.
package viz
