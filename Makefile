# Crisp - hand-written build.  `make` builds ./crisp, build/libcrisp.a and
# build/libcrisp.so (the in-memory API of include/crisp.h, nothing else
# exported) and build/libcrisp_all.a (every symbol: crisp, unit tests).
# `make test` installs what a fresh machine lacks, then runs every suite.
CC      ?= cc
CFLAGS  ?= -O2 -g
WARN     = -std=c11 -Wall -Wextra -Werror -Wshadow -Wmissing-prototypes
CPPFLAGS = -D_POSIX_C_SOURCE=200809L
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
LIBDIR  ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR  ?= $(PREFIX)/share/man
DOCDIR  ?= $(PREFIX)/share/doc/crisp
B       ?= build
# the active virtual environment's Python, else Debian's (with pyopencl)
PY      ?= $(if $(VIRTUAL_ENV),$(VIRTUAL_ENV)/bin/python3,/usr/bin/python3)
VERSION := $(shell sed -n 's/^\#define CRISP_VERSION "\(.*\)"/\1/p' include/crisp.h)
# where `make install` puts crisp_runtime.py: a directory this python3 searches
PYDIR   ?= $(shell $(PY) scripts/python_dir.py $(PREFIX))

DIRS     = core reader macros types analysis emit-oclc emit-hoist src
LIB_SRC  = $(filter-out src/main.c,$(foreach d,$(DIRS),$(wildcard $(d)/*.c)))
LIB_CRISP = lib/prelude.crisp $(filter-out lib/prelude.crisp,$(sort $(wildcard lib/*.crisp)))
GEN_SRC  = $(B)/gen/library.c $(B)/gen/runtime_h.c $(B)/gen/runtime_py.c $(B)/gen/runtime_cuda_h.c \
           $(B)/gen/runtime_cuda_py.c $(B)/gen/diag_examples.c $(B)/gen/libforms.c
NEG_TESTS = $(sort $(wildcard tests/neg/*.crisp tests/neg/*/*.crisp))
LIB_OBJ  = $(LIB_SRC:%.c=$(B)/%.o) $(GEN_SRC:.c=.o)
# library objects: position-independent, internal symbols hidden
LIBFLAGS = -fPIC -fvisibility=hidden -DCRISP_BUILDING_LIBRARY
LIBS     = -lm -lpthread
UNIT_SRC = $(wildcard tests/unit/test_*.c)
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(B)/unit/%)

all: crisp $(B)/libcrisp.a $(B)/libcrisp.so

crisp: $(B)/crisp
	cp $< $@

# -no-pie: the embedded library's 115k pointers are then fixed at link time,
# not relocated (and their pages copied) at every start: 5% of a 1 MB compile
$(B)/crisp: $(B)/src/main.o $(B)/libcrisp_all.a
	$(CC) $(CFLAGS) $(LDFLAGS) -no-pie -o $@ $^ $(LIBS)

$(B)/libcrisp_all.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

# The installed libraries export the API only: the static one is one
# relocatable object whose hidden (internal) symbols are made local.
$(B)/libcrisp.a: $(LIB_OBJ)
	$(LD) -r -o $(B)/libcrisp.o $^
	objcopy --localize-hidden $(B)/libcrisp.o
	rm -f $@ && ar rcs $@ $(B)/libcrisp.o

$(B)/libcrisp.so: $(LIB_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,libcrisp.so -Wl,-z,defs -o $@ $^ $(LIBS)

$(B)/src/main.o: src/main.c $(wildcard include/*.h $(DIRS:%=%/*.h))
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -c -o $@ $<

$(B)/%.o: %.c $(wildcard include/*.h $(DIRS:%=%/*.h))
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) $(LIBFLAGS) -c -o $@ $<

# The library (lib/*.crisp, written in Crisp) is compiled into the binary.
$(B)/gen/library.c: $(LIB_CRISP) scripts/embed_lib.sh
	@mkdir -p $(dir $@)
	sh scripts/embed_lib.sh $(LIB_CRISP) > $@

# ... and read at build time: the forms the reader makes of it, as C data
# (reader/libforms.h), by a program linked with the rest of the library.
GEN_TOOL_OBJ = $(filter-out $(B)/gen/libforms.o,$(LIB_OBJ))
$(B)/gen_libforms: scripts/gen_libforms.c scripts/libforms_stub.c $(GEN_TOOL_OBJ)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) $(LDFLAGS) -o $@ scripts/gen_libforms.c scripts/libforms_stub.c $(GEN_TOOL_OBJ) $(LIBS)

$(B)/gen/libforms.c: $(B)/gen_libforms
	@mkdir -p $(dir $@)
	$(B)/gen_libforms > $@.tmp && mv $@.tmp $@

# So is the runtime shim, which --emit-runtime=DIR writes next to outputs.
# The OpenCL and CUDA shims share parts, written once in runtime-shim/parts/:
# scripts/shim_parts.sh rewrites them into each shim (standalone files) first.
SHIM_PARTS = $(wildcard runtime-shim/parts/*.h runtime-shim/parts/*.py)

$(B)/gen/runtime_h.c: runtime-shim/crisp_runtime.h $(SHIM_PARTS) scripts/embed.sh scripts/shim_parts.sh
	@mkdir -p $(dir $@)
	sh scripts/shim_parts.sh $<
	sh scripts/embed.sh crisp_runtime_h_text $< > $@

$(B)/gen/runtime_py.c: runtime-shim/crisp_runtime.py $(SHIM_PARTS) scripts/embed.sh scripts/shim_parts.sh
	@mkdir -p $(dir $@)
	sh scripts/shim_parts.sh $<
	sh scripts/embed.sh crisp_runtime_py_text $< > $@

$(B)/gen/runtime_cuda_h.c: runtime-shim/crisp_runtime_cuda.h $(SHIM_PARTS) scripts/embed.sh scripts/shim_parts.sh
	@mkdir -p $(dir $@)
	sh scripts/shim_parts.sh $<
	sh scripts/embed.sh crisp_runtime_cuda_h_text $< > $@

$(B)/gen/runtime_cuda_py.c: runtime-shim/crisp_runtime_cuda.py $(SHIM_PARTS) scripts/embed.sh scripts/shim_parts.sh
	@mkdir -p $(dir $@)
	sh scripts/shim_parts.sh $<
	sh scripts/embed.sh crisp_runtime_cuda_py_text $< > $@

# The examples of `crisp --explain CODE` are the negative tests.
$(B)/gen/diag_examples.c: $(NEG_TESTS) scripts/embed_examples.sh
	@mkdir -p $(dir $@)
	sh scripts/embed_examples.sh $(NEG_TESTS) > $@

$(B)/gen/%.o: $(B)/gen/%.c core/diag.h
	$(CC) $(WARN) $(CFLAGS) $(LIBFLAGS) -Wno-missing-prototypes -c -o $@ $<

$(B)/unit/%: tests/unit/%.c $(B)/libcrisp_all.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) $(LDFLAGS) -o $@ $< $(B)/libcrisp_all.a -lcmocka $(LIBS)

unit: $(UNIT_BIN)
	sh tests/run_unit.sh $(UNIT_BIN)

deps:
	sh scripts/deps.sh

test: deps
	$(MAKE) all $(UNIT_BIN)
	PY=$(PY) sh tests/run_all.sh

demo: deps crisp
	PY=$(PY) sh scripts/demo.sh

bench: deps crisp
	PY=$(PY) sh scripts/bench.sh

asan:
	$(MAKE) B=build-asan CC=clang CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" LDFLAGS="-fsanitize=address,undefined" build-asan/crisp $(UNIT_SRC:tests/unit/%.c=build-asan/unit/%)
	PY=$(PY) sh tests/run_all.sh --asan

# `make test` runs each fuzz target for 30 s; this is the longer run.
fuzz:
	FUZZ_SECONDS=$${FUZZ_SECONDS:-600} sh tests/fuzz/run_fuzz.sh

# bin/crisp, lib/libcrisp.a and libcrisp.so (the in-memory API, docs/api.md),
# include/crisp/crisp.h (the one public header:
# #include <crisp/crisp.h>), lib/pkgconfig/crisp.pc (written for this
# PREFIX: `cc prog.c $(pkg-config --cflags --libs crisp)`), man1/crisp.1
# and the licence; the hoists' runtime shim: include/crisp/crisp_runtime.h
# and crisp_runtime.py in PYDIR, and the CUDA hoists' crisp_runtime_cuda.h
# and crisp_runtime_cuda.py beside them.  DESTDIR is prepended for staged
# installs.
INSTALLED = $(BINDIR)/crisp $(LIBDIR)/libcrisp.a $(LIBDIR)/libcrisp.so $(INCLUDEDIR)/crisp/crisp.h \
            $(LIBDIR)/pkgconfig/crisp.pc $(MANDIR)/man1/crisp.1 $(DOCDIR)/LICENSE \
            $(INCLUDEDIR)/crisp/crisp_runtime.h $(PYDIR)/crisp_runtime.py \
            $(INCLUDEDIR)/crisp/crisp_runtime_cuda.h $(PYDIR)/crisp_runtime_cuda.py

# The API's thread test under ThreadSanitizer (contexts in parallel threads).
tsan:
	$(MAKE) B=build-tsan CC=clang CFLAGS="-O1 -g -fsanitize=thread" LDFLAGS="-fsanitize=thread" build-tsan/unit/test_api
	CMOCKA_MESSAGE_OUTPUT=stdout TSAN_OPTIONS=halt_on_error=1 build-tsan/unit/test_api

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)/crisp \
	  $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(DOCDIR)
	install -m 755 crisp $(DESTDIR)$(BINDIR)/crisp
	install -m 644 $(B)/libcrisp.a $(DESTDIR)$(LIBDIR)/libcrisp.a
	install -m 755 $(B)/libcrisp.so $(DESTDIR)$(LIBDIR)/libcrisp.so
	install -m 644 include/crisp.h $(DESTDIR)$(INCLUDEDIR)/crisp/crisp.h
	install -m 644 runtime-shim/crisp_runtime.h $(DESTDIR)$(INCLUDEDIR)/crisp/crisp_runtime.h
	install -m 644 runtime-shim/crisp_runtime_cuda.h $(DESTDIR)$(INCLUDEDIR)/crisp/crisp_runtime_cuda.h
	install -d $(DESTDIR)$(PYDIR)
	install -m 644 runtime-shim/crisp_runtime.py $(DESTDIR)$(PYDIR)/crisp_runtime.py
	install -m 644 runtime-shim/crisp_runtime_cuda.py $(DESTDIR)$(PYDIR)/crisp_runtime_cuda.py
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' 'includedir=$(INCLUDEDIR)' '' 'Name: crisp' \
	  'Description: the Crisp compiler as a library (Crisp, a Lisp for GPU kernels, to OpenCL C)' \
	  'Version: $(VERSION)' 'Libs: -L$${libdir} -lcrisp -lm' 'Cflags: -I$${includedir}' \
	  > $(DESTDIR)$(LIBDIR)/pkgconfig/crisp.pc
	chmod 644 $(DESTDIR)$(LIBDIR)/pkgconfig/crisp.pc
	install -m 644 man/crisp.1 $(DESTDIR)$(MANDIR)/man1/crisp.1
	install -m 644 LICENSE $(DESTDIR)$(DOCDIR)/LICENSE

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	-rmdir $(DESTDIR)$(INCLUDEDIR)/crisp $(DESTDIR)$(DOCDIR) 2>/dev/null

clean:
	rm -rf build build-asan build-fuzz build-tsan crisp tests/out

.PHONY: all unit deps test demo bench asan fuzz tsan install uninstall clean
