// Runs an ONNX model with onnxruntime-node (one thread) on raw inputs and writes its outputs:
// the reference of the quantized model set (models/export_quant.py).
//
//   NODE_PATH=<dir with node_modules> node models/ort_reference.js MODEL SPEC_JSON OUTDIR [REPS]
//
// SPEC_JSON lists the inputs as {name, type, shape, file} with raw little-endian data; each
// output k is written to OUTDIR/out_<k>.bin in its own element type, with out_<k>.json holding
// {name, type, shape}. With REPS, prints the median milliseconds of REPS runs.
const ort = require('onnxruntime-node');
const fs = require('fs');
const arrays = {float32: Float32Array, int64: BigInt64Array, int32: Int32Array, float64: Float64Array,
  uint8: Uint8Array, int8: Int8Array, int16: Int16Array, uint16: Uint16Array, bool: Uint8Array};
(async () => {
  const [model, specJSON, outDir, reps] = process.argv.slice(2);
  const spec = JSON.parse(fs.readFileSync(specJSON));
  const s = await ort.InferenceSession.create(model, {intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential'});
  const feeds = {};
  for (const inp of spec) {
    const buf = fs.readFileSync(inp.file);
    const A = arrays[inp.type];
    const data = new A(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
    feeds[inp.name] = new ort.Tensor(inp.type, inp.type === 'bool' ? Array.from(data, x => !!x) : data, inp.shape);
  }
  let res = await s.run(feeds);
  s.outputNames.forEach((n, k) => {
    const t = res[n];
    fs.writeFileSync(outDir + '/out_' + k + '.bin', Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
    fs.writeFileSync(outDir + '/out_' + k + '.json', JSON.stringify({name: n, type: t.type, shape: t.dims}));
  });
  if (reps) {
    const ts = [];
    for (let i = 0; i < +reps; i++) {
      const t0 = process.hrtime.bigint();
      await s.run(feeds);
      ts.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    ts.sort((a, b) => a - b);
    console.log(ts[ts.length >> 1]);
  }
})().catch(e => { console.error(e); process.exit(1); });
