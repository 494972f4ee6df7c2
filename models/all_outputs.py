"""Writes MODEL with every top-level node output (but Constants) added as a graph output, and
DST.names listing the outputs in order: xtools/ortdiff compares them with graphc's evaluator.

    /usr/bin/python3 models/all_outputs.py MODEL DST
"""
import onnx, sys
src, dst = sys.argv[1], sys.argv[2]
m = onnx.load(src)
g = m.graph
have = {o.name for o in g.output}
names = []
for n in g.node:
    if n.op_type in ('Constant',):
        continue
    for o in n.output:
        if o and o not in have:
            names.append(o); have.add(o)
for nm in names:
    g.output.append(onnx.helper.make_empty_tensor_value_info(nm))
onnx.save(m, dst)
open(dst + '.names', 'w').write('\n'.join(o.name for o in g.output))
print(len(g.output))
