! SPDX-License-Identifier: GPL-2.0-or-later
! mpi_fortran - a Fortran program's collectives through libtorus_mpi.so
! (tests/vm/mpi_test.py): MPI_ALLREDUCE of doubles and, in place, of
! integers, MPI_REDUCE, MPI_BCAST and MPI_BARRIER, and MPI_IALLREDUCE
! in place with MPI_WAIT (through the shim under MPICH, whose Fortran
! library calls the C MPI_ functions; under Open MPI its own), each
! result checked; rank 0 prints "fortran ok" or "fortran not ok".
program mpi_fortran
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, nranks, i, good, req
  integer :: status(MPI_STATUS_SIZE)
  integer :: a(4), verdicts(4096)
  double precision :: x(5), y(5), z(5)
  logical :: ok

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nranks, ierr)
  do i = 1, 5
    x(i) = dble(rank + i) / 4d0
  end do
  call MPI_ALLREDUCE(x, y, 5, MPI_DOUBLE_PRECISION, MPI_SUM, &
                     MPI_COMM_WORLD, ierr)
  ok = ierr == MPI_SUCCESS
  do i = 1, 5
    ok = ok .and. y(i) == dble(nranks * (nranks - 1) / 2 + nranks * i) / 4d0
  end do
  a = rank
  call MPI_ALLREDUCE(MPI_IN_PLACE, a, 4, MPI_INTEGER, MPI_MAX, &
                     MPI_COMM_WORLD, ierr)
  ok = ok .and. ierr == MPI_SUCCESS .and. all(a == nranks - 1)
  z = 0d0
  call MPI_REDUCE(x, z, 5, MPI_DOUBLE_PRECISION, MPI_MAX, nranks - 1, &
                  MPI_COMM_WORLD, ierr)
  if (rank == nranks - 1) then
    do i = 1, 5
      ok = ok .and. z(i) == dble(nranks - 1 + i) / 4d0
    end do
  end if
  if (rank == 1) then
    y = (/ 1d0, 2d0, 3d0, 4d0, 5d0 /)
  else
    y = 0d0
  end if
  call MPI_BCAST(y, 5, MPI_DOUBLE_PRECISION, 1, MPI_COMM_WORLD, ierr)
  do i = 1, 5
    ok = ok .and. y(i) == dble(i)
  end do
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  ok = ok .and. ierr == MPI_SUCCESS
  a = rank + 1
  call MPI_IALLREDUCE(MPI_IN_PLACE, a, 4, MPI_INTEGER, MPI_SUM, &
                      MPI_COMM_WORLD, req, ierr)
  ok = ok .and. ierr == MPI_SUCCESS
  call MPI_WAIT(req, status, ierr)
  ok = ok .and. ierr == MPI_SUCCESS .and. &
       all(a == nranks * (nranks + 1) / 2)
  good = 0
  if (ok) good = 1
  ! gathered without the shim
  call MPI_GATHER(good, 1, MPI_INTEGER, verdicts, 1, MPI_INTEGER, 0, &
                  MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (all(verdicts(1:nranks) == 1)) then
      print '(A)', 'fortran ok'
    else
      print '(A)', 'fortran not ok'
    end if
  end if
  call MPI_FINALIZE(ierr)
end program mpi_fortran
