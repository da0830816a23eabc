! ring_halo.f90: the Fortran counterpart of ring_halo.c, for
! tests/python/test_capture.py. Open MPI's Fortran bindings call the C
! PMPI_* functions directly, so this proves that libibsec_capture's Fortran
! entry points (mpi_send_ etc.) record Fortran programs.
!
! With `use mpi` (the same entry points as mpif.h):
!   1. a ring of blocking MPI_Send + MPI_Recv, several rounds and sizes, with
!      MPI_STATUS_IGNORE, MPI_ANY_SOURCE and MPI_ANY_TAG receives;
!   2. a non-blocking exchange with both neighbours (MPI_Irecv, MPI_Isend,
!      MPI_Waitall with MPI_STATUSES_IGNORE, then with statuses);
!   3. MPI_Allreduce with MPI_IN_PLACE.
! With `use mpi_f08` (subroutine f08_phase; mixing both in one program is
! allowed by MPI-3):
!   4. an MPI_Sendrecv shift and an MPI_Barrier.
!
! Output (to the file named by the first argument, else stdout), one line
! per rank, the same format as ring_halo.c:
!   rank R sends N send_bytes B recvs N recv_bytes B allreduce 1 barrier 1 gather 1
! (the gather is the one that collects this report on rank 0).

program ring_halo_f
  use mpi
  implicit none
  integer, parameter :: rounds = 3, nsizes = 3, halo_n = 2048
  integer, parameter :: t_sends = 1, t_send_bytes = 2, t_recvs = 3, t_recv_bytes = 4, &
                        t_allreduce = 5, t_barrier = 6, t_gather = 7, t_count = 7
  character(len=10), parameter :: t_name(t_count) = [character(len=10) :: &
       'sends', 'send_bytes', 'recvs', 'recv_bytes', 'allreduce', 'barrier', 'gather']
  integer, parameter :: sizes(nsizes) = [1, 1000, 40000]   ! doubles
  integer(kind=8) :: tally(t_count)
  integer(kind=8), allocatable :: all(:, :)
  double precision, allocatable :: sbuf(:), rbuf(:)
  double precision :: out_l(halo_n), out_r(halo_n), in_l(halo_n), in_r(halo_n), sums(8)
  integer :: ierr, rank, nprocs, left, right, round, s, phase, tag, source, rtag, r, t, u
  integer :: req(4), st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 4)
  character(len=1024) :: path

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  if (nprocs < 2) then
    write (0, '(a)') 'ring_halo_f: needs at least 2 processes'
    call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end if
  tally = 0
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)

  ! 1. Blocking ring: even ranks send first, odd ranks receive first.
  allocate (sbuf(maxval(sizes)), rbuf(maxval(sizes)))
  sbuf = 1.0d0
  do round = 0, rounds - 1
    do s = 1, nsizes
      tag = 10 * round + s
      source = left
      if (round == 1) source = MPI_ANY_SOURCE
      rtag = tag
      if (round == 2) rtag = MPI_ANY_TAG
      do phase = 0, 1
        if ((phase == 0) .eqv. (mod(rank, 2) == 0)) then
          call MPI_Send(sbuf, sizes(s), MPI_DOUBLE_PRECISION, right, tag, MPI_COMM_WORLD, ierr)
          call count_message(tally(t_sends), tally(t_send_bytes), 8 * sizes(s))
        else if (round == 0) then
          call MPI_Recv(rbuf, sizes(s), MPI_DOUBLE_PRECISION, source, rtag, MPI_COMM_WORLD, &
                        MPI_STATUS_IGNORE, ierr)
          call count_message(tally(t_recvs), tally(t_recv_bytes), 8 * sizes(s))
        else
          call MPI_Recv(rbuf, sizes(s), MPI_DOUBLE_PRECISION, source, rtag, MPI_COMM_WORLD, st, ierr)
          if (st(MPI_SOURCE) /= left .or. st(MPI_TAG) /= tag) then
            write (0, '(a,i0,a,i0)') 'ring_halo_f: unexpected message from ', st(MPI_SOURCE), &
                                     ' tag ', st(MPI_TAG)
            call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
          end if
          call count_message(tally(t_recvs), tally(t_recv_bytes), 8 * sizes(s))
        end if
      end do
    end do
  end do

  ! 2. Non-blocking exchange with both neighbours (tag 100 to the right,
  !    101 to the left).
  out_l = 2.0d0
  out_r = 3.0d0
  do round = 0, 1
    call MPI_Irecv(in_l, halo_n, MPI_DOUBLE_PRECISION, left, 100, MPI_COMM_WORLD, req(1), ierr)
    call MPI_Irecv(in_r, halo_n, MPI_DOUBLE_PRECISION, right, 101, MPI_COMM_WORLD, req(2), ierr)
    call MPI_Isend(out_r, halo_n, MPI_DOUBLE_PRECISION, right, 100, MPI_COMM_WORLD, req(3), ierr)
    call MPI_Isend(out_l, halo_n, MPI_DOUBLE_PRECISION, left, 101, MPI_COMM_WORLD, req(4), ierr)
    if (round == 0) then
      call MPI_Waitall(4, req, MPI_STATUSES_IGNORE, ierr)
    else
      call MPI_Waitall(4, req, sts, ierr)
    end if
    do t = 1, 2
      call count_message(tally(t_sends), tally(t_send_bytes), 8 * halo_n)
      call count_message(tally(t_recvs), tally(t_recv_bytes), 8 * halo_n)
    end do
  end do

  ! 3. Allreduce in place.
  sums = dble(rank)
  call MPI_Allreduce(MPI_IN_PLACE, sums, 8, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  tally(t_allreduce) = tally(t_allreduce) + 1
  if (abs(sums(1) - dble(nprocs * (nprocs - 1) / 2)) > 0.5d0) then
    write (0, '(a)') 'ring_halo_f: wrong allreduce result'
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if

  ! 4. Through the mpi_f08 bindings.
  call f08_phase(rank, nprocs, tally(t_sends), tally(t_send_bytes), tally(t_recvs), &
                 tally(t_recv_bytes), tally(t_barrier))

  ! The report, gathered on rank 0.
  tally(t_gather) = tally(t_gather) + 1
  allocate (all(t_count, nprocs))
  call MPI_Gather(tally, t_count, MPI_INTEGER8, all, t_count, MPI_INTEGER8, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    u = 6
    if (command_argument_count() >= 1) then
      call get_command_argument(1, path)
      open (newunit=u, file=trim(path), status='replace', action='write')
    end if
    do r = 1, nprocs
      write (u, '(a,i0)', advance='no') 'rank ', r - 1
      do t = 1, t_count
        write (u, '(a,a,a,i0)', advance='no') ' ', trim(t_name(t)), ' ', all(t, r)
      end do
      write (u, '(a)') ''
    end do
    if (u /= 6) close (u)
  end if
  call MPI_Finalize(ierr)

contains

  subroutine count_message(n, bytes, size)
    integer(kind=8), intent(inout) :: n, bytes
    integer, intent(in) :: size
    n = n + 1
    bytes = bytes + size
  end subroutine count_message

end program ring_halo_f

! A shift to the right with MPI_Sendrecv and a barrier, through mpi_f08.
subroutine f08_phase(rank, nprocs, sends, send_bytes, recvs, recv_bytes, barriers)
  use mpi_f08
  implicit none
  integer, intent(in) :: rank, nprocs
  integer(kind=8), intent(inout) :: sends, send_bytes, recvs, recv_bytes, barriers
  integer :: out(64), in(64)
  type(MPI_Status) :: st

  out = rank
  call MPI_Sendrecv(out, 64, MPI_INTEGER, mod(rank + 1, nprocs), 7, in, 64, MPI_INTEGER, &
                    mod(rank + nprocs - 1, nprocs), 7, MPI_COMM_WORLD, st)
  sends = sends + 1
  send_bytes = send_bytes + 4 * 64
  recvs = recvs + 1
  recv_bytes = recv_bytes + 4 * 64
  call MPI_Barrier(MPI_COMM_WORLD)
  barriers = barriers + 1
end subroutine f08_phase
