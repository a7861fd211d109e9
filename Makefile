# SPDX-License-Identifier: GPL-2.0-or-later
# torus — top-level build and test entry points.
#
#   make            module + tools           make check   deps, all, all tests
#   make module     kernel/torus.ko          make unit    userspace unit tests
#   make tools      build/bin/*              make kunit   KUnit under UML
#   make deps       install Debian packages  make vm-check  VM scenarios only
#   make check-debug  the VM scenarios on a KASAN/kmemleak/lockdep kernel
#                   built once from linux-source-6.1 (tests/vm/debug-kernel)
#   make demo       run tests/vm/demo.sh in the VM
#   make demo-two   two VMs joined by Ethernet, one fabric (tests/vm/two/run)
#   make bench      run tests/bench/bench.sh in the VM
#   make bench-coll  collectives: torus.ko through libtorus beside Open MPI
#                   over TCP on tor0 and over shared memory, 8/27/64 nodes,
#                   in the VM (~20 min); build/bench-coll/results.{json,md}
#   make bench-mpi  an unmodified MPI program's collectives: Open MPI over
#                   TCP on tor0, Open MPI and MPICH with libtorus_mpi.so,
#                   Open MPI's shared memory; 8/27/64 ranks, in the VM;
#                   build/bench-coll/results-mpi.{json,md}
#   make bench-routes  install time of 40,000 route exceptions in the VM,
#                   beside a baseline build of torus.ko (ROUTES_BASELINE)
#   make bench-reroute  the reroute scenario 3 times per configuration,
#                   this torusd beside a baseline, quiet and busy guest
#                   (~25 min); build/bench-reroute/results.{json,md}
#   make reliability  fault storm, churn and a 60 s hostile-frame flood in
#                   the VM (~30 min); figures in build/reliability/results.json
#   make bench-sim  torus-sim at 32x32x64 (65,536 nodes), on the host
#   make sim-sweep  torus-sim over shapes and faults and over histories
#                   in time, 100 seeds a row (~46 min on 2 cores);
#                   build/sim-sweep.json and .md (make check: quick rows)
#   make fuzz       libFuzzer harnesses, 10^7 runs each (tests/fuzz), and
#                   10^7 random frames into the collectives engine (KUnit)
#   make install    torus, torusd, torus-lab, torus-sim, man pages, ip
#                   plugins, unit file, bash completion and the module
#                   source for DKMS (/usr/src/torus-VERSION) into DESTDIR
#                   (PREFIX=/usr, BINDIR, SBINDIR, MANDIR, IPLIBDIR, ...)
#   make deb        build/deb/torus-tools_VERSION_ARCH.deb and
#                   torus-dkms_VERSION_all.deb (dpkg-deb)
#   make dpkg       the same packages from debian/ with dpkg-buildpackage
#                   in a copy of the tree, then lintian (build/dpkg)
#   make dkms-vm    the whole DKMS flow (dkms add ., dkms install, modprobe)
#                   inside the VM (~10 min under TCG; make check runs the
#                   dkms build on the host and loads its module in the VM)
#   make clean      remove build products (keeps build/kunit, build/vm caches)
#   make distclean  remove build/ entirely
#
# KVER selects the target kernel: default is the newest /lib/modules/<ver>
# that has a build/ directory (never the running kernel: the host cannot
# load modules; torus.ko runs in the qemu VM, see tests/vm/run).

# It is looked up when each make starts, so the sub-makes of "make check"
# see the headers that "make deps" has just installed; an empty value is
# never exported (it would hide them from the sub-make).
ifeq ($(strip $(KVER)),)
KVER := $(shell for d in $$(ls -1 /lib/modules 2>/dev/null | sort -rV); do \
		if [ -d /lib/modules/$$d/build ]; then echo $$d; break; fi; done)
endif
KDIR ?= /lib/modules/$(KVER)/build
ifneq ($(KVER),)
export KVER
endif

.PHONY: all module tools deps check check-full check-debug unit kunit vm-check demo demo-two bench bench-coll bench-mpi bench-routes bench-reroute reliability bench-sim sim-sweep fuzz install install-tools install-dkms-src deb dpkg dkms-vm clean distclean help

all: module tools

module:
	@if [ -z "$(KVER)" ] || [ ! -d "$(KDIR)" ]; then \
		echo "module: no kernel headers in /lib/modules/*/build (run: make deps)" >&2; exit 1; fi
	@if [ -f kernel/Kbuild ] || [ -f kernel/Makefile ]; then \
		$(MAKE) -C $(KDIR) M=$(CURDIR)/kernel CONFIG_TORUS=m W=1 modules; \
	else \
		echo "module: kernel/Kbuild not there yet, skipping" >&2; fi

tools:
	@if [ -f daemon/Makefile ]; then $(MAKE) -C daemon; fi
	@if [ -f tools/Makefile ]; then $(MAKE) -C tools; \
	else echo "tools: tools/Makefile not there yet, skipping" >&2; fi
	@if [ -f tools/sim/Makefile ]; then $(MAKE) -C tools/sim; fi
	@if [ -f tools/iproute2/Makefile ]; then $(MAKE) -C tools/iproute2; fi
	$(MAKE) -C tools/mpi
	@$(MAKE) -C tests/bench

deps:
	@scripts/deps

# Ends with tests/run's summary line even when the build fails (a stale
# torus.ko is never tested).
check:
	@$(MAKE) --no-print-directory deps
	@if $(MAKE) --no-print-directory all; then tests/run; \
	else tests/run --build-failed; fi

# make check, the simulator on the paper's 65,536-node machine, the plain
# KUnit build too, then the soak, storm and 64-node VM runs
# (tests/vm/check-full.sh): before resolving work that touches what they
# cover (docs/testing.md)
check-full:
	@$(MAKE) --no-print-directory deps
	@if $(MAKE) --no-print-directory all; then \
		tests/run unit core sim sim-full fuzz pkg vm vm-two vm-two-e1000 vm-full kunit kunit-debug; \
	else tests/run --build-failed; fi

unit:
	@tests/run unit core sim

kunit:
	@tests/kunit/run

vm-check: all
	@tests/run vm

# The VM scenarios again on a debug kernel of our own (first build is long:
# see build/vm-debug/times.txt); ends with tests/run's summary line.
check-debug:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory all
	@tests/run vm-debug

demo:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory all
	tests/vm/run -- tests/vm/demo.sh

# two machines, one fabric: 4 nodes in each of two VMs, NICs between them
demo-two:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory all
	tests/vm/two/run && echo "demo-two: ok"

bench:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory all
	tests/vm/run --timeout 1800 -- tests/bench/bench.sh

# the full reliability runs (make check runs the quick ones): a 60 s
# fault storm, 1000 netns, 100 insmod/rmmod and 100 torusd kill cycles,
# then hostile frames at full speed for RELIABILITY_SECS.
# no_timer_check: on a busy host the guest's boot-time IO-APIC timer
# check can fail under TCG and panic ("IO-APIC + timer doesn't work")
RELIABILITY_SECS ?= 60
reliability:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory all
	tests/vm/run --check-dmesg --rmmod --timeout 5400 \
		--append no_timer_check -- \
		tests/vm/reliability.sh full build/reliability
	tests/vm/run --check-dmesg --append no_timer_check -- \
		python3 tests/vm/hostile_flood.py --duration $(RELIABILITY_SECS) \
		--json build/reliability/hostile.json

# collectives beside Open MPI (tests/bench/bench-coll.py; BENCH_COLL_ARGS
# e.g. "--sizes 8,27")
BENCH_COLL_ARGS ?=
bench-coll:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory all
	tests/vm/run --timeout 3600 --mem 2048 -- \
		python3 tests/bench/bench-coll.py $(BENCH_COLL_ARGS)

# the MPIs side by side (tests/bench/bench-coll.py --mpi; BENCH_MPI_ARGS
# e.g. "--sizes 8,27 --quick")
BENCH_MPI_ARGS ?=
bench-mpi:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory all
	tests/vm/run --timeout 7200 --mem 2048 -- \
		python3 tests/bench/bench-coll.py --mpi $(BENCH_MPI_ARGS)

# the simulator at Blue Gene/L scale (host only, no VM)
# route exception install time, this build beside a baseline build
# (tests/bench/bench-routes.sh; make check runs it without the baseline)
bench-routes:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory all
	tests/bench/bench-routes.sh

# the reroute scenario over many runs, this torusd beside a baseline,
# quiet and busy guest (tests/bench/bench-reroute.sh; REROUTE_RUNS,
# REROUTE_LOADS, REROUTE_BASELINE)
bench-reroute:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory all
	tests/bench/bench-reroute.sh

bench-sim:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory tools
	tests/bench/bench-sim.sh

# the simulator over a table of shapes, faults and histories (host only);
# SIM_SWEEP_ARGS e.g. "--jobs 2" or "--rows 'i11-*'"
SIM_SWEEP_ARGS ?=
sim-sweep:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory tools
	python3 tests/sim/sweep.py $(SIM_SWEEP_ARGS)

# the codecs under libFuzzer (ASan+UBSan); make check runs a short version
# the libFuzzer harnesses, then the collectives engine fed
# COLL_FUZZ_FRAMES random frames under KASAN and lockdep (KUnit, UML)
COLL_FUZZ_FRAMES ?= 10000000
fuzz:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory -C tests/fuzz long
	KUNIT_KERNEL_ARGS="torus.coll_fuzz_frames=$(COLL_FUZZ_FRAMES)" \
		KUNIT_TIMEOUT=7200 tests/kunit/run --debug \
		'torus_coll_engine.torus_coll_fuzz_test'

# ---- install (DESTDIR-aware; the version is dkms.conf's) ----
VERSION		:= $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"$$/\1/p' dkms.conf)
PREFIX		?= /usr
BINDIR		?= $(PREFIX)/bin
SBINDIR		?= $(PREFIX)/sbin
MANDIR		?= $(PREFIX)/share/man
# torus-lab's Python module and its launcher
LABDIR		?= $(PREFIX)/lib/torus
# stock ip looks for link_KIND.so here (iproute2's LIBDIR/ip)
MULTIARCH	:= $(shell gcc -print-multiarch 2>/dev/null)
IPLIBDIR	?= $(PREFIX)/lib/$(MULTIARCH)/ip
UNITDIR		?= $(PREFIX)/lib/systemd/system
# libtorus: its header beside the module's uapi header
INCLUDEDIR	?= $(PREFIX)/include
LIBDIR		?= $(PREFIX)/lib/$(MULTIARCH)
DKMSSRCDIR	?= $(PREFIX)/src/torus-$(VERSION)
COMPLETIONDIR	?= $(PREFIX)/share/bash-completion/completions
INSTALL		?= install
# what DKMS needs to build the module, and nothing else
DKMS_SRC	:= Kbuild dkms.conf uapi/linux/torus.h kernel/Kbuild \
		   kernel/Kconfig $(filter-out %.mod.c,$(wildcard kernel/*.c kernel/*.h))

install: install-tools install-dkms-src

install-tools:
	@for f in build/bin/torus build/bin/torusd build/bin/torus-sim \
		build/ip/link_torus.so build/lib/libtorus.a; do \
		[ -f $$f ] || { echo "install: no $$f (run: make tools)" >&2; exit 1; }; done
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR) \
		$(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(LABDIR) $(DESTDIR)$(IPLIBDIR) \
		$(DESTDIR)$(UNITDIR) $(DESTDIR)$(COMPLETIONDIR)
	$(INSTALL) -m 755 build/bin/torus build/bin/torusd $(DESTDIR)$(SBINDIR)/
	$(INSTALL) -m 755 build/bin/torus-sim $(DESTDIR)$(BINDIR)/
	$(INSTALL) -m 755 tools/lab/torus-lab $(DESTDIR)$(LABDIR)/
	$(INSTALL) -m 644 tools/lab/torus_lab.py $(DESTDIR)$(LABDIR)/
	ln -sf $(LABDIR)/torus-lab $(DESTDIR)$(SBINDIR)/torus-lab
	$(INSTALL) -m 644 man/torus.8 man/torusd.8 man/torus-lab.8 \
		man/torus-sim.8 man/ip-link-torus.8 $(DESTDIR)$(MANDIR)/man8/
	$(INSTALL) -m 644 build/ip/link_torus.so build/ip/link_torport.so \
		build/ip/link_torus_slave.so $(DESTDIR)$(IPLIBDIR)/
	$(INSTALL) -m 644 daemon/torusd@.service $(DESTDIR)$(UNITDIR)/
	$(INSTALL) -m 644 tools/completion/torus.bash $(DESTDIR)$(COMPLETIONDIR)/torus
	$(INSTALL) -d $(DESTDIR)$(INCLUDEDIR)/linux $(DESTDIR)$(LIBDIR) \
		$(DESTDIR)$(MANDIR)/man3
	$(INSTALL) -m 644 uapi/linux/torus.h $(DESTDIR)$(INCLUDEDIR)/linux/
	$(INSTALL) -m 644 tools/libtorus/libtorus.h $(DESTDIR)$(INCLUDEDIR)/
	# the static library only: a shared one belongs in a libtorus0
	# package of its own (Debian policy 8.1), not in torus-tools
	$(INSTALL) -m 644 build/lib/libtorus.a $(DESTDIR)$(LIBDIR)/
	$(INSTALL) -m 644 man/libtorus.3 $(DESTDIR)$(MANDIR)/man3/
	# libtorus_mpi.so for each MPI it was built for (torus-mpi(7))
	$(INSTALL) -d $(DESTDIR)$(MANDIR)/man7
	$(INSTALL) -m 644 man/torus-mpi.7 $(DESTDIR)$(MANDIR)/man7/
	for m in openmpi mpich; do \
		[ -f build/lib/$$m/libtorus_mpi.so ] || continue; \
		$(INSTALL) -D -m 644 build/lib/$$m/libtorus_mpi.so \
			$(DESTDIR)$(LABDIR)/$$m/libtorus_mpi.so || exit 1; done

install-dkms-src:
	$(INSTALL) -d $(DESTDIR)$(DKMSSRCDIR)
	for f in $(DKMS_SRC); do \
		$(INSTALL) -D -m 644 $$f $(DESTDIR)$(DKMSSRCDIR)/$$f || exit 1; done

# two Debian packages from the two install halves (scripts/mkdeb)
deb:
	@$(MAKE) --no-print-directory tools
	scripts/mkdeb $(VERSION) build/deb

# debian/: dpkg-buildpackage -us -uc -b and lintian (scripts/dpkg-build)
dpkg:
	@$(MAKE) --no-print-directory deps
	scripts/dpkg-build build/dpkg

# dkms add ., dkms install and modprobe inside the VM (tests/pkg/run.sh
# first: it prepares the source tree the guest copies)
dkms-vm:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory all
	bash tests/pkg/run.sh
	tests/vm/run --timeout 3600 -- python3 tests/vm/eco_test.py --dkms-full

clean:
	@if [ -f tools/iproute2/Makefile ]; then $(MAKE) -C tools/iproute2 clean; fi
	@if [ -d "$(KDIR)" ] && { [ -f kernel/Kbuild ] || [ -f kernel/Makefile ]; }; then \
		$(MAKE) -C $(KDIR) M=$(CURDIR)/kernel clean; fi
	@if [ -f daemon/Makefile ]; then $(MAKE) -C daemon clean; fi
	@if [ -f tools/Makefile ]; then $(MAKE) -C tools clean; fi
	@if [ -f tools/sim/Makefile ]; then $(MAKE) -C tools/sim clean; fi
	@$(MAKE) -C tests/bench clean
	rm -rf build/bin build/fuzz build/test.log build/test-logs build/vm/runs build/vm/console.log build/vm/dmesg.log

distclean: clean
	rm -rf build

help:
	@sed -n '2,/^$$/s/^# \{0,1\}//p' Makefile
