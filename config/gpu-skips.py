#!/usr/bin/env python3
"""Reports GPU tests as skipped where no GPU is visible.

GPU tests say 'requires: gpu' in their TEST block; the harness then does not generate them at
all unless build/include/sfpcconf.h defines SFPC_HAVE_GPU (config/configure.py sets it when
nvidia-smi sees a GPU). So that they are counted rather than silently absent, this adds an
'ok <name> # SKIP no GPU visible' TAP line and a counts file for each of them.

Usage: gpu-skips.py --harness DIR --testdir DIR --conf sfpcconf.h SRCDIR...
"""
import argparse
import glob
import os
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--harness', required=True)
    ap.add_argument('--testdir', required=True)
    ap.add_argument('--conf', required=True)
    ap.add_argument('srcdirs', nargs='+')
    a = ap.parse_args()
    if 'SFPC_HAVE_GPU' in open(a.conf).read():
        return
    sys.path.insert(0, a.harness)
    import testparse  # PETSc's TEST-block parser, installed with the harness

    skipped = []
    for d in a.srcdirs:
        for src in sorted(glob.glob(os.path.join(d, '*.c'))):
            parsed = testparse.parseTestFile(src, 0)
            root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
            prefix = os.path.relpath(os.path.abspath(d), root).replace(os.sep, '_')  # as the harness names tests
            for tests in parsed.values():
                for name, t in tests.items():
                    if name in testparse.buildkeys or not isinstance(t, dict):
                        continue
                    reqs = ' '.join(t.get('requires', []) if isinstance(t.get('requires'), list) else [t.get('requires', '')])
                    if 'gpu' in reqs.split():
                        skipped.append('%s-%s' % (prefix, name[3:] if name.startswith('run') else name))
    with open(os.path.join(a.testdir, 'test_build_tap.log'), 'a') as tap:
        for label in skipped:
            line = 'ok %s # SKIP no GPU visible' % label
            print(line)
            tap.write(line + '\n')
            with open(os.path.join(a.testdir, 'counts', label + '.counts'), 'w') as c:
                c.write('total 0\nsuccess 0\nfailed 0\nfailures \nskip 1\ntime 0 0\n')


if __name__ == '__main__':
    main()
