"""python_dir.py PREFIX - where `make install` puts Python modules so that
this python3 finds them: its own site directory under PREFIX when it has one
(/usr/local/lib/python3.11/dist-packages on Debian), else PREFIX's
lib/pythonX.Y/site-packages (then add it to PYTHONPATH)."""
import os
import site
import sys
import sysconfig

prefix = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "/usr/local")
for d in site.getsitepackages():
    if d.startswith(prefix + os.sep):
        print(d)
        break
else:
    print(sysconfig.get_path("purelib", "posix_prefix", vars={"base": prefix, "platbase": prefix}))
