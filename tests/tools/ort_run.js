#!/usr/bin/env node
// Run an ONNX model with ONNX Runtime for Node.js: the reference for compare_with_ort.sh.
//
//   node ort_run.js infer MODEL.onnx INPUT.npy OUT.npy [--threads N]
//   node ort_run.js bench MODEL.onnx [--threads 2] [--runs 30] [--batch 1] [--warmup 5]
//   node ort_run.js outputs MODEL.onnx INPUT.npy OUTDIR [--threads N]
//
// The module is taken from $ORT_NODE_MODULE, else /tmp/ort/node_modules/onnxruntime-node, else
// a plain require('onnxruntime-node'). infer feeds INPUT.npy (float32) to the model's first input
// and writes its first output as float32 .npy; outputs writes every output as OUTDIR/NAME.npy in
// its own type (float32, 8-, 16- or 32-bit integers). bench feeds seeded uniform [0,1) values (batch
// filling a symbolic first dim, 1 for other symbolic dims) and prints median_ms / min_ms.
'use strict';

const fs = require('fs');
const path = require('path');

function loadOrt() {
    const candidates = [];
    if (process.env.ORT_NODE_MODULE) candidates.push(process.env.ORT_NODE_MODULE);
    candidates.push('/tmp/ort/node_modules/onnxruntime-node', 'onnxruntime-node');
    let lastError;
    for (const c of candidates) {
        try {
            return require(path.isAbsolute(c) ? c : c.startsWith('.') ? path.resolve(c) : c);
        } catch (e) {
            lastError = e;
        }
    }
    throw new Error(`cannot load onnxruntime-node (tried ${candidates.join(', ')}): ${lastError}`);
}

// --- tiny .npy reader/writer (float32 / float64 little-endian, C order) ---

function readNpy(file) {
    const buf = fs.readFileSync(file);
    if (buf.readUInt32BE(0) !== 0x934e554d || buf.toString('latin1', 4, 6) !== 'PY')
        throw new Error(`${file}: not a .npy file`);
    const major = buf[6];
    const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
    const headerStart = major === 1 ? 10 : 12;
    const header = buf.toString('latin1', headerStart, headerStart + headerLen);
    const descr = /'descr':\s*'([^']+)'/.exec(header);
    const fortran = /'fortran_order':\s*(True|False)/.exec(header);
    const shapeMatch = /'shape':\s*\(([^)]*)\)/.exec(header);
    if (!descr || !fortran || !shapeMatch) throw new Error(`${file}: bad .npy header`);
    if (fortran[1] === 'True') throw new Error(`${file}: Fortran order is not supported`);
    const shape = shapeMatch[1].split(',').map(s => s.trim()).filter(s => s).map(Number);
    const count = shape.reduce((a, b) => a * b, 1);
    const dataStart = headerStart + headerLen;
    const out = new Float32Array(count);
    if (descr[1] === '<f4') {
        for (let i = 0; i < count; ++i) out[i] = buf.readFloatLE(dataStart + 4 * i);
    } else if (descr[1] === '<f8') {
        for (let i = 0; i < count; ++i) out[i] = buf.readDoubleLE(dataStart + 8 * i);
    } else {
        throw new Error(`${file}: dtype ${descr[1]} is not supported (float32/float64 only)`);
    }
    return { shape, data: out };
}

// numpy descr and element size of ORT's tensor types.
const NPY_TYPES = {
    float32: ['<f4', 4], uint8: ['|u1', 1], int8: ['|i1', 1], uint16: ['<u2', 2],
    int16: ['<i2', 2], int32: ['<i4', 4], int64: ['<i8', 8],
};

function writeNpy(file, shape, data, type = 'float32') {
    if (!(type in NPY_TYPES)) throw new Error(`${file}: output type ${type} cannot be written`);
    const [descr, size] = NPY_TYPES[type];
    const shapeText = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
    let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shapeText}, }`;
    // Pad so that magic(6) + version(2) + len(2) + header + '\n' is a multiple of 64.
    const total = Math.ceil((10 + header.length + 1) / 64) * 64;
    header = header.padEnd(total - 10 - 1, ' ') + '\n';
    const bytes = Buffer.from(data.buffer, data.byteOffset, data.length * size);
    const buf = Buffer.alloc(total + bytes.length);
    buf.writeUInt32BE(0x934e554d, 0);
    buf.write('PY', 4, 'latin1');
    buf[6] = 1;
    buf[7] = 0;
    buf.writeUInt16LE(header.length, 8);
    buf.write(header, 10, 'latin1');
    bytes.copy(buf, total);
    fs.writeFileSync(file, buf);
}

// --- options ---

function parseOptions(args, defaults) {
    const opts = { ...defaults };
    const positional = [];
    for (let i = 0; i < args.length; ++i) {
        if (args[i].startsWith('--')) {
            const key = args[i].slice(2);
            if (!(key in defaults)) throw new Error(`unknown option ${args[i]}`);
            const value = Number(args[++i]);
            if (!Number.isInteger(value) || value < 0) throw new Error(`${args[i - 1]} expects a number`);
            opts[key] = value;
        } else {
            positional.push(args[i]);
        }
    }
    return { opts, positional };
}

function sessionOptions(threads) {
    return {
        intraOpNumThreads: threads,
        interOpNumThreads: 1,
        graphOptimizationLevel: process.env.ORT_GRAPH_OPTIMIZATION || 'all',  // 'disabled': QDQ runs as float ops
        executionMode: 'sequential',
    };
}

// Seeded uniform [0,1) values (mulberry32) so runs are repeatable.
function seededUniform(count, seed) {
    const out = new Float32Array(count);
    let a = seed >>> 0;
    for (let i = 0; i < count; ++i) {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        out[i] = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    }
    return out;
}

// --- commands ---

// Runs MODEL.onnx on INPUT.npy (its first input); `usage` names the command's positionals.
async function runOnInput(args, usage) {
    const { opts, positional } = parseOptions(args, { threads: 2 });
    if (positional.length !== 3) throw new Error(`usage: ort_run.js ${usage}`);
    const [model, inputFile, target] = positional;
    const ort = loadOrt();
    const session = await ort.InferenceSession.create(model, sessionOptions(opts.threads));
    const input = readNpy(inputFile);
    const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', input.data, input.shape) };
    return { model, target, session, results: await session.run(feeds) };
}

async function infer(args) {
    const { model, target: outFile, session, results } =
        await runOnInput(args, 'infer MODEL.onnx INPUT.npy OUT.npy');
    const out = results[session.outputNames[0]];
    if (out.type !== 'float32') throw new Error(`output type ${out.type} is not float32`);
    writeNpy(outFile, out.dims, out.data);
    console.log(`ort ${model}: output ${session.outputNames[0]} [${out.dims.join(', ')}] -> ${outFile}`);
}

async function outputs(args) {
    const { model, target: outDir, session, results } =
        await runOnInput(args, 'outputs MODEL.onnx INPUT.npy OUTDIR');
    fs.mkdirSync(outDir, { recursive: true });
    for (const name of session.outputNames) {
        const out = results[name];
        writeNpy(path.join(outDir, `${name}.npy`), out.dims, out.data, out.type);
        console.log(`ort ${model}: ${name} ${out.type} [${out.dims.join(', ')}]`);
    }
}

async function bench(args) {
    const { opts, positional } = parseOptions(args, { threads: 2, runs: 30, batch: 1, warmup: 5 });
    if (positional.length !== 1) throw new Error('usage: ort_run.js bench MODEL.onnx [--threads N] [--runs N]');
    const model = positional[0];
    const ort = loadOrt();
    const session = await ort.InferenceSession.create(model, sessionOptions(opts.threads));
    const feeds = {};
    let seed = 1234;
    for (const name of session.inputNames) {
        // inputMetadata (ORT >= 1.21) lists shapes with symbolic dims as strings.
        const meta = Array.isArray(session.inputMetadata)
            ? session.inputMetadata.find(m => m.name === name) : undefined;
        const declared = meta && meta.shape ? meta.shape : [opts.batch, 3, 224, 224];
        const dims = declared.map((d, i) => (i === 0 ? opts.batch : typeof d === 'number' && d > 0 ? d : 1));
        const count = dims.reduce((a, b) => a * b, 1);
        feeds[name] = new ort.Tensor('float32', seededUniform(count, seed++), dims);
    }
    for (let i = 0; i < opts.warmup; ++i) await session.run(feeds);
    const times = [];
    for (let i = 0; i < opts.runs; ++i) {
        const start = process.hrtime.bigint();
        await session.run(feeds);
        times.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    times.sort((a, b) => a - b);
    console.log(`model: ${model}`);
    console.log(`threads: ${opts.threads}  batch: ${opts.batch}  runs: ${opts.runs}`);
    console.log(`median_ms: ${times[Math.floor(times.length / 2)].toFixed(3)}`);
    console.log(`min_ms: ${times[0].toFixed(3)}`);
}

async function main() {
    const [command, ...rest] = process.argv.slice(2);
    if (command === 'infer') return infer(rest);
    if (command === 'bench') return bench(rest);
    if (command === 'outputs') return outputs(rest);
    throw new Error('usage: ort_run.js infer MODEL.onnx INPUT.npy OUT.npy | bench MODEL.onnx [options] | ' +
                    'outputs MODEL.onnx INPUT.npy OUTDIR');
}

main().catch(e => {
    console.error(`ort_run.js: ${e.message || e}`);
    process.exit(1);
});
