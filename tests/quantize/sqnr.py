#!/usr/bin/env python3
"""SQNR (dB) of TEST.npy against REFERENCE.npy, float32 C-order, standard library only (CI has no numpy).

    sqnr.py REFERENCE.npy TEST.npy [--min DB]

Prints the SQNR = 10 log10(sum x^2 / sum (x - y)^2); exits 1 when below --min.
"""
import array
import ast
import math
import struct
import sys


def read_npy(path):
    with open(path, 'rb') as f:
        data = f.read()
    if data[:6] != b'\x93NUMPY':
        sys.exit(f'{path}: not a .npy file')
    major = data[6]
    if major == 1:
        header_len, start = struct.unpack('<H', data[8:10])[0], 10
    else:
        header_len, start = struct.unpack('<I', data[8:12])[0], 12
    header = ast.literal_eval(data[start:start + header_len].decode('latin1'))
    if header['descr'] != '<f4' or header['fortran_order']:
        sys.exit(f'{path}: expected little-endian float32 in C order, got {header}')
    values = array.array('f')
    values.frombytes(data[start + header_len:])
    if sys.byteorder != 'little':
        values.byteswap()
    return tuple(header['shape']), values


def main():
    args = sys.argv[1:]
    minimum = None
    if '--min' in args:
        i = args.index('--min')
        minimum = float(args[i + 1])
        del args[i:i + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    ref_shape, ref = read_npy(args[0])
    test_shape, test = read_npy(args[1])
    if ref_shape != test_shape:
        sys.exit(f'shape mismatch: {ref_shape} vs {test_shape}')
    signal = sum(x * x for x in ref)
    noise = sum((x - y) * (x - y) for x, y in zip(ref, test))
    sqnr = math.inf if noise == 0 else 10.0 * math.log10(signal / noise)
    print(f'SQNR {sqnr:.2f} dB')
    if minimum is not None and sqnr < minimum:
        print(f'below the required {minimum} dB')
        sys.exit(1)


if __name__ == '__main__':
    main()
