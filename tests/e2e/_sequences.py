"""_sequences.py - examples/loops.crisp writes each loop's indices followed
by END; sequences() splits the output buffer back into one list per loop."""

END = 999999


def sequences(out):
    seqs, cur = [], []
    for v in out.tolist():
        if v == END:
            seqs.append(cur)
            cur = []
        else:
            cur.append(v)
    return seqs
