// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The Fortran entry points (mpif.h and the mpi module, gfortran's
 * names).  Open MPI's Fortran library calls PMPI_ functions directly, so
 * a C shim alone would never see a Fortran program's collectives: these
 * convert the handles and call the C entry points above.  MPI_Init and
 * MPI_Finalize call the MPI's own Fortran routines, which set up what
 * Fortran needs, and run the shim's hooks around them.
 *
 * MPI_IN_PLACE and MPI_BOTTOM are addresses of common blocks in Fortran:
 * Open MPI's own symbols, or MPICH's /MPIPRIV1/ (MPI_BOTTOM, then
 * MPI_IN_PLACE).  A buffer at MPI_BOTTOM goes to the MPI's own routine.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "torus_mpi.h"

typedef void (*tm_f_init)(MPI_Fint *ierr);
typedef void (*tm_f_init_thread)(MPI_Fint *required, MPI_Fint *provided,
				 MPI_Fint *ierr);
typedef void (*tm_f_finalize)(MPI_Fint *ierr);
typedef void (*tm_f_bcast)(void *buf, MPI_Fint *count, MPI_Fint *dt,
			   MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr);
typedef void (*tm_f_reduce)(void *s, void *r, MPI_Fint *count, MPI_Fint *dt,
			    MPI_Fint *op, MPI_Fint *root, MPI_Fint *comm,
			    MPI_Fint *ierr);
typedef void (*tm_f_allreduce)(void *s, void *r, MPI_Fint *count,
			       MPI_Fint *dt, MPI_Fint *op, MPI_Fint *comm,
			       MPI_Fint *ierr);

/* the MPI library's own Fortran routine */
static void *tm_next(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f) {
		fprintf(stderr, "torus-mpi: no %s in the MPI library\n", name);
		abort();
	}
	return f;
}

enum tm_sentinel { TM_BUFFER, TM_IN_PLACE, TM_BOTTOM };

/* the MPI's Fortran sentinels, looked up once (at MPI_INIT) */
static const char *tm_in_place, *tm_bottom;

static void tm_sentinels(void)
{
	const char *mpich = dlsym(RTLD_DEFAULT, "mpipriv1_");

	tm_in_place = mpich ? mpich + sizeof(MPI_Fint) :
		dlsym(RTLD_DEFAULT, "mpi_fortran_in_place_");
	tm_bottom = mpich ? mpich : dlsym(RTLD_DEFAULT, "mpi_fortran_bottom_");
}

static enum tm_sentinel tm_sentinel(const void *p)
{
	if (p && p == tm_in_place)
		return TM_IN_PLACE;
	if (p && p == tm_bottom)
		return TM_BOTTOM;
	return TM_BUFFER;
}

void mpi_init_(MPI_Fint *ierr);
void mpi_init_(MPI_Fint *ierr)
{
	((tm_f_init)tm_next("mpi_init_"))(ierr);
	tm_sentinels();
	if (*ierr == MPI_SUCCESS)
		tm_init_hook();
}

void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr);
void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
	((tm_f_init_thread)tm_next("mpi_init_thread_"))(required, provided,
							ierr);
	tm_sentinels();
	if (*ierr == MPI_SUCCESS)
		tm_init_hook();
}

void mpi_finalize_(MPI_Fint *ierr);
void mpi_finalize_(MPI_Fint *ierr)
{
	tm_finalize_hook();
	((tm_f_finalize)tm_next("mpi_finalize_"))(ierr);
}

void mpi_barrier_(MPI_Fint *comm, MPI_Fint *ierr);
void mpi_barrier_(MPI_Fint *comm, MPI_Fint *ierr)
{
	*ierr = MPI_Barrier(PMPI_Comm_f2c(*comm));
}

void mpi_bcast_(void *buf, MPI_Fint *count, MPI_Fint *dt, MPI_Fint *root,
		MPI_Fint *comm, MPI_Fint *ierr);
void mpi_bcast_(void *buf, MPI_Fint *count, MPI_Fint *dt, MPI_Fint *root,
		MPI_Fint *comm, MPI_Fint *ierr)
{
	if (tm_sentinel(buf) != TM_BUFFER) {
		((tm_f_bcast)tm_next("mpi_bcast_"))(buf, count, dt, root, comm,
						    ierr);
		return;
	}
	*ierr = MPI_Bcast(buf, *count, PMPI_Type_f2c(*dt), *root,
			  PMPI_Comm_f2c(*comm));
}

void mpi_reduce_(void *s, void *r, MPI_Fint *count, MPI_Fint *dt,
		 MPI_Fint *op, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr);
void mpi_reduce_(void *s, void *r, MPI_Fint *count, MPI_Fint *dt,
		 MPI_Fint *op, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
	enum tm_sentinel ss = tm_sentinel(s);

	if (ss == TM_BOTTOM || tm_sentinel(r) != TM_BUFFER) {
		((tm_f_reduce)tm_next("mpi_reduce_"))(s, r, count, dt, op,
						      root, comm, ierr);
		return;
	}
	*ierr = MPI_Reduce(ss == TM_IN_PLACE ? MPI_IN_PLACE : s, r, *count,
			   PMPI_Type_f2c(*dt), PMPI_Op_f2c(*op), *root,
			   PMPI_Comm_f2c(*comm));
}

void mpi_allreduce_(void *s, void *r, MPI_Fint *count, MPI_Fint *dt,
		    MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr);
void mpi_allreduce_(void *s, void *r, MPI_Fint *count, MPI_Fint *dt,
		    MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr)
{
	enum tm_sentinel ss = tm_sentinel(s);

	if (ss == TM_BOTTOM || tm_sentinel(r) != TM_BUFFER) {
		((tm_f_allreduce)tm_next("mpi_allreduce_"))(s, r, count, dt,
							    op, comm, ierr);
		return;
	}
	*ierr = MPI_Allreduce(ss == TM_IN_PLACE ? MPI_IN_PLACE : s, r, *count,
			      PMPI_Type_f2c(*dt), PMPI_Op_f2c(*op),
			      PMPI_Comm_f2c(*comm));
}
