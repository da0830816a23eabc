! mpi3_calls.f90: the Fortran counterpart of mpi3_calls.c, for
! tests/python/test_capture_mpi3.py: every MPI-3 point-to-point and collective
! call that libibsec_capture records, through `use mpi` (module tally_m and
! the main program), `include 'mpif.h'` (subroutine mpif_h_part) and
! `use mpi_f08` (subroutine f08_part). Each rank counts what its trace must
! say, by the rules written at the top of mpi3_calls.c, and rank 0 writes
! the same report lines. Runs on 4 processes.

module tally_m
  use mpi
  implicit none
  integer, parameter :: k_count = 41
  character(len=16), parameter :: key_name(k_count) = [character(len=16) :: &
       'send', 'recv', 'isend', 'irecv', 'wait', 'barrier', 'bcast', 'reduce', 'gather', 'scatter', 'allreduce', &
       'allgather', 'alltoall', 'alltoallv', 'allgatherv', 'gatherv', 'scatterv', 'reduce_scatter', 'scan', &
       'exscan', 'ibarrier', 'ibcast', 'ireduce', 'igather', 'iscatter', 'iallreduce', 'iallgather', 'ialltoall', &
       'ialltoallv', 'iallgatherv', 'igatherv', 'iscatterv', 'ireduce_scatter', 'iscan', 'iexscan', 'send_bytes', &
       'recv_bytes', 'coll_bytes', 'any', 'self', 'comm_p2p']
  integer(kind=8) :: tally(k_count) = 0
  integer :: rank, nprocs, right, left
  integer, parameter :: big = 500         ! doubles: 4000 bytes
  double precision :: sbuf(8192), rbuf(8192)
contains
  integer function k(name)
    character(len=*), intent(in) :: name
    do k = 1, k_count
      if (key_name(k) == name) return
    end do
    write (0, '(2a)') 'mpi3_calls_f: no key ', name
    stop 1
  end function k

  subroutine add(name, n)
    character(len=*), intent(in) :: name
    integer(kind=8), intent(in) :: n
    tally(k(name)) = tally(k(name)) + n
  end subroutine add

  ! One point-to-point event of BYTES to or from world rank PEER; WORLD says it is on MPI_COMM_WORLD.
  subroutine p2p(op, sending, bytes, peer, world)
    character(len=*), intent(in) :: op
    logical, intent(in) :: sending, world
    integer, intent(in) :: bytes, peer
    call add(op, 1_8)
    if (sending) then
      call add('send_bytes', int(bytes, 8))
      if (peer == rank) call add('self', 1_8)
    else
      call add('recv_bytes', int(bytes, 8))
    end if
    if (.not. world) call add('comm_p2p', 1_8)
  end subroutine p2p

  subroutine coll(op, bytes)
    character(len=*), intent(in) :: op
    integer, intent(in) :: bytes
    call add(op, 1_8)
    call add('coll_bytes', int(bytes, 8))
  end subroutine coll

  subroutine check(ierr, what)
    integer, intent(in) :: ierr
    character(len=*), intent(in) :: what
    integer :: e
    if (ierr /= MPI_SUCCESS) then
      write (0, '(3a,i0)') 'mpi3_calls_f: ', what, ' failed: ', ierr
      call MPI_Abort(MPI_COMM_WORLD, 1, e)
    end if
  end subroutine check
end module tally_m

program mpi3_calls_f
  use mpi
  use tally_m
  implicit none
  integer :: ierr, r, t
  integer(kind=8), allocatable :: all(:, :)
  character(len=1024) :: path
  character(len=:), allocatable :: line
  character(len=24) :: num
  double precision, allocatable :: bsend_buffer(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  if (nprocs /= 4) then
    write (0, '(a)') 'mpi3_calls_f: needs 4 processes'
    call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end if
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  sbuf = 1.0d0
  allocate (bsend_buffer(4 * (8192 + MPI_BSEND_OVERHEAD)))
  call MPI_Buffer_attach(bsend_buffer, 8 * size(bsend_buffer), ierr)

  call point_to_point()
  call persistent_and_probes()
  call blocking_collectives(MPI_COMM_WORLD)
  call nonblocking_collectives(MPI_COMM_WORLD)
  call communicators()
  call mpif_h_part(rank, right, left, tally)
  call f08_part(rank, right, left, tally)

  call MPI_Buffer_detach(bsend_buffer, r, ierr)
  call coll('gather', 8 * k_count)
  allocate (all(k_count, nprocs))
  call MPI_Gather(tally, k_count, MPI_INTEGER8, all, k_count, MPI_INTEGER8, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    call get_command_argument(1, path)
    open (unit=10, file=trim(path), status='replace', action='write')
    do r = 1, nprocs
      write (num, '(i0)') r - 1
      line = 'rank ' // trim(num)
      do t = 1, k_count
        write (num, '(i0)') all(t, r)
        line = line // ' ' // trim(key_name(t)) // ' ' // trim(num)
      end do
      write (10, '(a)') line
    end do
    close (10)
  end if
  call MPI_Finalize(ierr)

contains

  ! Blocking and non-blocking sends of every mode, every wait and test,
  ! sendrecv, self-messages and a freed request.
  subroutine point_to_point()
    integer :: ierr, m, phase, req(4), sreq(4), idx, outcount, indices(4), st(MPI_STATUS_SIZE)
    integer :: sts(MPI_STATUS_SIZE, 4), small(3), got(3)
    logical :: flag
    do m = 0, 2
      do phase = 0, 1
        if ((phase == 0) .eqv. (mod(rank, 2) == 0)) then
          select case (m)
          case (0)
            call MPI_Send(sbuf, big, MPI_DOUBLE_PRECISION, right, 10 + m, MPI_COMM_WORLD, ierr)
          case (1)
            call MPI_Ssend(sbuf, big, MPI_DOUBLE_PRECISION, right, 10 + m, MPI_COMM_WORLD, ierr)
          case default
            call MPI_Bsend(sbuf, big, MPI_DOUBLE_PRECISION, right, 10 + m, MPI_COMM_WORLD, ierr)
          end select
          call check(ierr, 'send')
          call p2p('send', .true., 8 * big, right, .true.)
        else
          call MPI_Recv(rbuf, 8192, MPI_DOUBLE_PRECISION, left, 10 + m, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
          call p2p('recv', .false., 8 * big, left, .true.)
        end if
      end do
    end do
    call MPI_Irecv(rbuf, 8192, MPI_DOUBLE_PRECISION, left, 13, MPI_COMM_WORLD, req(1), ierr)
    call p2p('irecv', .false., 8 * big, left, .true.)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call coll('barrier', 0)
    call MPI_Rsend(sbuf, big, MPI_DOUBLE_PRECISION, right, 13, MPI_COMM_WORLD, ierr)
    call p2p('send', .true., 8 * big, right, .true.)
    call MPI_Wait(req(1), st, ierr)
    call add('wait', 1_8)

    ! Non-blocking sends of every mode; the receives completed by waitany, waitsome and wait.
    do m = 1, 4
      call MPI_Irecv(rbuf(1 + (m - 1) * 1024), 1024, MPI_DOUBLE_PRECISION, left, 20 + m, MPI_COMM_WORLD, req(m), ierr)
      call p2p('irecv', .false., 8 * big, left, .true.)
    end do
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call coll('barrier', 0)
    call MPI_Isend(sbuf, big, MPI_DOUBLE_PRECISION, right, 21, MPI_COMM_WORLD, sreq(1), ierr)
    call MPI_Issend(sbuf, big, MPI_DOUBLE_PRECISION, right, 22, MPI_COMM_WORLD, sreq(2), ierr)
    call MPI_Ibsend(sbuf, big, MPI_DOUBLE_PRECISION, right, 23, MPI_COMM_WORLD, sreq(3), ierr)
    call MPI_Irsend(sbuf, big, MPI_DOUBLE_PRECISION, right, 24, MPI_COMM_WORLD, sreq(4), ierr)
    do m = 1, 4
      call p2p('isend', .true., 8 * big, right, .true.)
    end do
    call MPI_Waitall(4, sreq, MPI_STATUSES_IGNORE, ierr)
    call MPI_Waitany(4, req, idx, st, ierr)
    call MPI_Waitsome(4, req, outcount, indices, sts, ierr)
    do m = 1, 4
      if (req(m) /= MPI_REQUEST_NULL) call MPI_Wait(req(m), MPI_STATUS_IGNORE, ierr)
    end do
    call add('wait', 8_8)

    ! Three small sends at once (one shared request in Open MPI), wildcard receives, every test.
    do m = 1, 3
      call MPI_Irecv(rbuf(1 + (m - 1) * 64), 64, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, 30, MPI_COMM_WORLD, &
                     got(m), ierr)
      call p2p('irecv', .false., 64, left, .true.)
      call add('any', 1_8)
    end do
    do m = 1, 3
      call MPI_Isend(sbuf, 8, MPI_DOUBLE_PRECISION, right, 30, MPI_COMM_WORLD, small(m), ierr)
      call p2p('isend', .true., 64, right, .true.)
    end do
    flag = .false.
    do while (.not. flag)
      call MPI_Testall(3, small, flag, MPI_STATUSES_IGNORE, ierr)
    end do
    flag = .false.
    do while (.not. flag)
      call MPI_Test(got(1), flag, st, ierr)
    end do
    flag = .false.
    idx = MPI_UNDEFINED
    do while (.not. flag .or. idx == MPI_UNDEFINED)
      call MPI_Testany(3, got, idx, flag, MPI_STATUS_IGNORE, ierr)
    end do
    outcount = 0
    do while (outcount == 0 .or. outcount == MPI_UNDEFINED)
      call MPI_Testsome(3, got, outcount, indices, MPI_STATUSES_IGNORE, ierr)
    end do
    call add('wait', 6_8)

    ! Sendrecv (wildcard source), Sendrecv_replace, to itself, a freed request.
    call MPI_Sendrecv(sbuf, big, MPI_DOUBLE_PRECISION, right, 40, rbuf, 8192, MPI_DOUBLE_PRECISION, &
                      MPI_ANY_SOURCE, 40, MPI_COMM_WORLD, st, ierr)
    call p2p('irecv', .false., 8 * big, left, .true.)
    call p2p('isend', .true., 8 * big, right, .true.)
    call add('wait', 2_8)
    call add('any', 1_8)
    call MPI_Sendrecv_replace(rbuf, 100, MPI_INTEGER, right, 41, left, 41, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call p2p('irecv', .false., 400, left, .true.)
    call p2p('isend', .true., 400, right, .true.)
    call add('wait', 2_8)
    call MPI_Isend(sbuf, 25, MPI_DOUBLE_PRECISION, rank, 43, MPI_COMM_WORLD, req(1), ierr)
    call p2p('isend', .true., 200, rank, .true.)
    call MPI_Recv(rbuf, 25, MPI_DOUBLE_PRECISION, rank, 43, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call p2p('recv', .false., 200, rank, .true.)
    call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
    call add('wait', 1_8)
    call MPI_Isend(sbuf, big, MPI_DOUBLE_PRECISION, right, 44, MPI_COMM_WORLD, req(1), ierr)
    call p2p('isend', .true., 8 * big, right, .true.)
    call MPI_Request_free(req(1), ierr)
    call add('wait', 1_8)
    call MPI_Recv(rbuf, 8192, MPI_DOUBLE_PRECISION, left, 44, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call p2p('recv', .false., 8 * big, left, .true.)
  end subroutine point_to_point

  ! Persistent requests of every mode; probes and matched probes.
  subroutine persistent_and_probes()
    integer :: ierr, m, round, req(2), sends(4), st(MPI_STATUS_SIZE), msg, tag
    logical :: flag
    do m = 0, 3
      tag = 70 + m
      if (m == 2) then
        call MPI_Recv_init(rbuf, 8192, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, req(1), ierr)
      else
        call MPI_Recv_init(rbuf, 8192, MPI_DOUBLE_PRECISION, left, tag, MPI_COMM_WORLD, req(1), ierr)
      end if
      select case (m)
      case (0)
        call MPI_Send_init(sbuf, big, MPI_DOUBLE_PRECISION, right, tag, MPI_COMM_WORLD, req(2), ierr)
      case (1)
        call MPI_Bsend_init(sbuf, big, MPI_DOUBLE_PRECISION, right, tag, MPI_COMM_WORLD, req(2), ierr)
      case (2)
        call MPI_Ssend_init(sbuf, big, MPI_DOUBLE_PRECISION, right, tag, MPI_COMM_WORLD, req(2), ierr)
      case default
        call MPI_Rsend_init(sbuf, big, MPI_DOUBLE_PRECISION, right, tag, MPI_COMM_WORLD, req(2), ierr)
      end select
      do round = 1, 2
        if (m == 3) then
          call MPI_Start(req(1), ierr)
          call MPI_Barrier(MPI_COMM_WORLD, ierr)
          call coll('barrier', 0)
          call MPI_Start(req(2), ierr)
        else
          call MPI_Startall(2, req, ierr)
        end if
        call p2p('irecv', .false., 8 * big, left, .true.)
        call p2p('isend', .true., 8 * big, right, .true.)
        if (m == 2) call add('any', 1_8)
        call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)
        call add('wait', 2_8)
      end do
      call MPI_Request_free(req(1), ierr)
      call MPI_Request_free(req(2), ierr)
    end do

    do tag = 60, 63
      call MPI_Isend(sbuf, big, MPI_DOUBLE_PRECISION, right, tag, MPI_COMM_WORLD, sends(tag - 59), ierr)
      call p2p('isend', .true., 8 * big, right, .true.)
    end do
    call MPI_Probe(left, 60, MPI_COMM_WORLD, st, ierr)
    call MPI_Recv(rbuf, 8192, MPI_DOUBLE_PRECISION, left, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call p2p('recv', .false., 8 * big, left, .true.)
    flag = .false.
    do while (.not. flag)
      call MPI_Iprobe(MPI_ANY_SOURCE, 61, MPI_COMM_WORLD, flag, st, ierr)
    end do
    call MPI_Recv(rbuf, 8192, MPI_DOUBLE_PRECISION, st(MPI_SOURCE), 61, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call p2p('recv', .false., 8 * big, left, .true.)
    call MPI_Mprobe(MPI_ANY_SOURCE, 62, MPI_COMM_WORLD, msg, st, ierr)
    call MPI_Mrecv(rbuf, 8192, MPI_DOUBLE_PRECISION, msg, MPI_STATUS_IGNORE, ierr)
    call p2p('recv', .false., 8 * big, left, .true.)
    call add('any', 1_8)
    flag = .false.
    do while (.not. flag)
      call MPI_Improbe(left, 63, MPI_COMM_WORLD, flag, msg, st, ierr)
    end do
    call MPI_Imrecv(rbuf, 8192, MPI_DOUBLE_PRECISION, msg, req(1), ierr)
    call p2p('irecv', .false., 8 * big, left, .true.)
    call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
    call MPI_Waitall(4, sends, MPI_STATUSES_IGNORE, ierr)
    call add('wait', 5_8)
  end subroutine persistent_and_probes

  ! Every blocking collective on COMM; the counts as in mpi3_calls.c.
  subroutine blocking_collectives(comm)
    integer, intent(in) :: comm
    integer :: ierr, n, me, i, counts(4), displs(4), pair(4), wdispls(4), types(4), rcounts(4)
    integer :: all, pair_bytes, wbytes
    call MPI_Comm_size(comm, n, ierr)
    call MPI_Comm_rank(comm, me, ierr)
    all = 0
    pair_bytes = 0
    wbytes = 0
    do i = 1, n
      counts(i) = i
      pair(i) = me + i
      displs(i) = (i - 1) * 64
      wdispls(i) = (i - 1) * 512
      rcounts(i) = i
      if (mod(me + i - 1, 2) == 1) then
        types(i) = MPI_DOUBLE_PRECISION
        wbytes = wbytes + 8 * pair(i)
      else
        types(i) = MPI_INTEGER
        wbytes = wbytes + 4 * pair(i)
      end if
      all = all + 8 * counts(i)
      pair_bytes = pair_bytes + 8 * pair(i)
    end do
    call MPI_Barrier(comm, ierr)
    call coll('barrier', 0)
    call MPI_Bcast(sbuf, 10, MPI_DOUBLE_PRECISION, 1, comm, ierr)
    call coll('bcast', 80)
    call MPI_Reduce(sbuf, rbuf, 7, MPI_DOUBLE_PRECISION, MPI_SUM, 0, comm, ierr)
    call coll('reduce', 56)
    call MPI_Allreduce(MPI_IN_PLACE, rbuf, 5, MPI_INTEGER, MPI_MAX, comm, ierr)
    call coll('allreduce', 20)
    call MPI_Gather(sbuf, 3, MPI_DOUBLE_PRECISION, rbuf, 3, MPI_DOUBLE_PRECISION, 0, comm, ierr)
    call coll('gather', 24)
    call MPI_Scatter(sbuf, 2, MPI_INTEGER, rbuf, 2, MPI_INTEGER, 1, comm, ierr)
    call coll('scatter', 8)
    call MPI_Allgather(sbuf, 4, MPI_DOUBLE_PRECISION, rbuf, 4, MPI_DOUBLE_PRECISION, comm, ierr)
    call coll('allgather', 32)
    call MPI_Alltoall(sbuf, 2, MPI_DOUBLE_PRECISION, rbuf, 2, MPI_DOUBLE_PRECISION, comm, ierr)
    call coll('alltoall', 16)
    call MPI_Gatherv(sbuf, counts(me + 1), MPI_DOUBLE_PRECISION, rbuf, counts, displs, MPI_DOUBLE_PRECISION, 0, &
                     comm, ierr)
    if (me == 0) then
      call coll('gatherv', all)
    else
      call coll('gatherv', 8 * counts(me + 1))
    end if
    call MPI_Scatterv(sbuf, counts, displs, MPI_DOUBLE_PRECISION, rbuf, counts(me + 1), MPI_DOUBLE_PRECISION, &
                      n - 1, comm, ierr)
    if (me == n - 1) then
      call coll('scatterv', all)
    else
      call coll('scatterv', 8 * counts(me + 1))
    end if
    call MPI_Allgatherv(sbuf, counts(me + 1), MPI_DOUBLE_PRECISION, rbuf, counts, displs, MPI_DOUBLE_PRECISION, &
                        comm, ierr)
    call coll('allgatherv', all)
    call MPI_Alltoallv(sbuf, pair, displs, MPI_DOUBLE_PRECISION, rbuf, pair, displs, MPI_DOUBLE_PRECISION, comm, ierr)
    call coll('alltoallv', pair_bytes)
    call MPI_Alltoallv(MPI_IN_PLACE, pair, displs, MPI_DATATYPE_NULL, rbuf, pair, displs, MPI_DOUBLE_PRECISION, &
                       comm, ierr)
    call coll('alltoallv', pair_bytes)
    call MPI_Alltoallw(sbuf, pair, wdispls, types, rbuf, pair, wdispls, types, comm, ierr)
    call coll('alltoallv', wbytes)
    call MPI_Reduce_scatter(sbuf, rbuf, rcounts, MPI_DOUBLE_PRECISION, MPI_SUM, comm, ierr)
    call coll('reduce_scatter', 8 * n * (n + 1) / 2)
    call MPI_Reduce_scatter_block(sbuf, rbuf, 3, MPI_INTEGER, MPI_SUM, comm, ierr)
    call coll('reduce_scatter', 12 * n)
    call MPI_Scan(sbuf, rbuf, 6, MPI_DOUBLE_PRECISION, MPI_SUM, comm, ierr)
    call coll('scan', 48)
    call MPI_Exscan(sbuf, rbuf, 9, MPI_INTEGER, MPI_SUM, comm, ierr)
    call coll('exscan', 36)
  end subroutine blocking_collectives

  ! Every non-blocking collective on COMM, all in flight at once, then completed.
  subroutine nonblocking_collectives(comm)
    integer, intent(in) :: comm
    integer, parameter :: nc = 17
    double precision, save :: in(512, nc), out(512, nc)
    integer :: ierr, n, me, i, r(nc), counts(4), displs(4), pair(4), wdispls(4), types(4), rcounts(4)
    integer :: all, pair_bytes, wbytes
    logical :: flag
    call MPI_Comm_size(comm, n, ierr)
    call MPI_Comm_rank(comm, me, ierr)
    all = 0
    pair_bytes = 0
    wbytes = 0
    do i = 1, n
      counts(i) = 1 + i
      pair(i) = 1 + me + i
      displs(i) = (i - 1) * 64
      wdispls(i) = (i - 1) * 512
      rcounts(i) = i
      if (mod(me + i - 1, 2) == 1) then
        types(i) = MPI_INTEGER
        wbytes = wbytes + 4 * pair(i)
      else
        types(i) = MPI_DOUBLE_PRECISION
        wbytes = wbytes + 8 * pair(i)
      end if
      all = all + 8 * counts(i)
      pair_bytes = pair_bytes + 8 * pair(i)
    end do
    call MPI_Ibarrier(comm, r(1), ierr)
    call coll('ibarrier', 0)
    call MPI_Ibcast(out(1, 2), 10, MPI_DOUBLE_PRECISION, 0, comm, r(2), ierr)
    call coll('ibcast', 80)
    call MPI_Ireduce(in(1, 3), out(1, 3), 7, MPI_DOUBLE_PRECISION, MPI_SUM, 1, comm, r(3), ierr)
    call coll('ireduce', 56)
    call MPI_Iallreduce(in(1, 4), out(1, 4), 5, MPI_INTEGER, MPI_MAX, comm, r(4), ierr)
    call coll('iallreduce', 20)
    call MPI_Igather(in(1, 5), 3, MPI_DOUBLE_PRECISION, out(1, 5), 3, MPI_DOUBLE_PRECISION, 0, comm, r(5), ierr)
    call coll('igather', 24)
    call MPI_Iscatter(in(1, 6), 2, MPI_INTEGER, out(1, 6), 2, MPI_INTEGER, 0, comm, r(6), ierr)
    call coll('iscatter', 8)
    call MPI_Iallgather(in(1, 7), 4, MPI_DOUBLE_PRECISION, out(1, 7), 4, MPI_DOUBLE_PRECISION, comm, r(7), ierr)
    call coll('iallgather', 32)
    call MPI_Ialltoall(in(1, 8), 2, MPI_DOUBLE_PRECISION, out(1, 8), 2, MPI_DOUBLE_PRECISION, comm, r(8), ierr)
    call coll('ialltoall', 16)
    call MPI_Igatherv(in(1, 9), counts(me + 1), MPI_DOUBLE_PRECISION, out(1, 9), counts, displs, &
                      MPI_DOUBLE_PRECISION, 0, comm, r(9), ierr)
    if (me == 0) then
      call coll('igatherv', all)
    else
      call coll('igatherv', 8 * counts(me + 1))
    end if
    call MPI_Iscatterv(in(1, 10), counts, displs, MPI_DOUBLE_PRECISION, out(1, 10), counts(me + 1), &
                       MPI_DOUBLE_PRECISION, 0, comm, r(10), ierr)
    if (me == 0) then
      call coll('iscatterv', all)
    else
      call coll('iscatterv', 8 * counts(me + 1))
    end if
    call MPI_Iallgatherv(in(1, 11), counts(me + 1), MPI_DOUBLE_PRECISION, out(1, 11), counts, displs, &
                         MPI_DOUBLE_PRECISION, comm, r(11), ierr)
    call coll('iallgatherv', all)
    call MPI_Ialltoallv(in(1, 12), pair, displs, MPI_DOUBLE_PRECISION, out(1, 12), pair, displs, &
                        MPI_DOUBLE_PRECISION, comm, r(12), ierr)
    call coll('ialltoallv', pair_bytes)
    call MPI_Ialltoallw(in(1, 13), pair, wdispls, types, out(1, 13), pair, wdispls, types, comm, r(13), ierr)
    call coll('ialltoallv', wbytes)
    call MPI_Ireduce_scatter(in(1, 14), out(1, 14), rcounts, MPI_DOUBLE_PRECISION, MPI_SUM, comm, r(14), ierr)
    call coll('ireduce_scatter', 8 * n * (n + 1) / 2)
    call MPI_Ireduce_scatter_block(in(1, 15), out(1, 15), 3, MPI_INTEGER, MPI_SUM, comm, r(15), ierr)
    call coll('ireduce_scatter', 12 * n)
    call MPI_Iscan(in(1, 16), out(1, 16), 6, MPI_DOUBLE_PRECISION, MPI_SUM, comm, r(16), ierr)
    call coll('iscan', 48)
    call MPI_Iexscan(in(1, 17), out(1, 17), 9, MPI_INTEGER, MPI_SUM, comm, r(17), ierr)
    call coll('iexscan', 36)
    call MPI_Wait(r(1), MPI_STATUS_IGNORE, ierr)
    flag = .false.
    do while (.not. flag)
      call MPI_Test(r(2), flag, MPI_STATUS_IGNORE, ierr)
    end do
    call MPI_Waitall(nc - 2, r(3:nc), MPI_STATUSES_IGNORE, ierr)
    call add('wait', int(nc, 8))
  end subroutine nonblocking_collectives

  ! A ring exchange on COMM, whose ranks are translated to world ranks.
  subroutine exchange_on(comm, tag)
    integer, intent(in) :: comm, tag
    integer :: ierr, n, me, g, world, peers(2), wpeers(2)
    call MPI_Comm_size(comm, n, ierr)
    call MPI_Comm_rank(comm, me, ierr)
    call MPI_Comm_group(comm, g, ierr)
    call MPI_Comm_group(MPI_COMM_WORLD, world, ierr)
    peers = [mod(me + 1, n), mod(me + n - 1, n)]
    call MPI_Group_translate_ranks(g, 2, peers, world, wpeers, ierr)
    call MPI_Group_free(g, ierr)
    call MPI_Group_free(world, ierr)
    call MPI_Sendrecv(sbuf, 30, MPI_DOUBLE_PRECISION, peers(1), tag, rbuf, 30, MPI_DOUBLE_PRECISION, peers(2), tag, &
                      comm, MPI_STATUS_IGNORE, ierr)
    call check(ierr, 'sendrecv on a communicator')
    call p2p('irecv', .false., 240, wpeers(2), .false.)
    call p2p('isend', .true., 240, wpeers(1), .false.)
    call add('wait', 2_8)
  end subroutine exchange_on

  subroutine communicators()
    integer :: ierr, half, dup, first3, last3, shared, cart, row, graph, dist, adjacent, info_dup, inter, merged
    integer :: world, g, me, partner, i
    integer :: dims(2) = [2, 2], idx(4) = [2, 4, 6, 8], edges(8) = [1, 3, 0, 2, 1, 3, 0, 2], srcs(1), dsts(1)
    logical :: periods(2) = [.true., .true.], keep(2) = [.false., .true.]
    call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half, ierr)
    call exchange_on(half, 80)
    call MPI_Bcast(sbuf, 2, MPI_DOUBLE_PRECISION, 0, half, ierr)
    call coll('bcast', 16)
    call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
    call exchange_on(dup, 80)
    call blocking_collectives(dup)
    call nonblocking_collectives(half)
    call MPI_Comm_group(MPI_COMM_WORLD, world, ierr)
    call MPI_Group_incl(world, 3, [0, 1, 2], g, ierr)
    call MPI_Comm_create(MPI_COMM_WORLD, g, first3, ierr)
    call MPI_Group_free(g, ierr)
    if (first3 /= MPI_COMM_NULL) then
      call MPI_Barrier(first3, ierr)
      call coll('barrier', 0)
      call exchange_on(first3, 81)
      call MPI_Comm_free(first3, ierr)
    end if
    call MPI_Group_incl(world, 3, [1, 2, 3], g, ierr)
    if (rank >= 1) then
      call MPI_Comm_create_group(MPI_COMM_WORLD, g, 7, last3, ierr)
      call MPI_Allreduce(sbuf, rbuf, 1, MPI_INTEGER, MPI_SUM, last3, ierr)
      call coll('allreduce', 4)
      call MPI_Comm_free(last3, ierr)
    end if
    call MPI_Group_free(g, ierr)
    call MPI_Group_free(world, ierr)
    call MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, shared, ierr)
    call MPI_Barrier(shared, ierr)
    call coll('barrier', 0)
    call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., cart, ierr)
    call exchange_on(cart, 82)
    call MPI_Cart_sub(cart, keep, row, ierr)
    call MPI_Allreduce(sbuf, rbuf, 2, MPI_INTEGER, MPI_SUM, row, ierr)
    call coll('allreduce', 8)
    call MPI_Graph_create(MPI_COMM_WORLD, 4, idx, edges, .false., graph, ierr)
    call MPI_Barrier(graph, ierr)
    call coll('barrier', 0)
    srcs(1) = left
    dsts(1) = right
    call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, srcs, MPI_UNWEIGHTED, 1, dsts, MPI_UNWEIGHTED, &
                                        MPI_INFO_NULL, .false., adjacent, ierr)
    call exchange_on(adjacent, 83)
    call MPI_Dist_graph_create(MPI_COMM_WORLD, 1, [rank], [1], dsts, MPI_UNWEIGHTED, MPI_INFO_NULL, .false., dist, &
                               ierr)
    call MPI_Barrier(dist, ierr)
    call coll('barrier', 0)
    call MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, info_dup, ierr)
    call MPI_Reduce(sbuf, rbuf, 3, MPI_INTEGER, MPI_SUM, 2, info_dup, ierr)
    call coll('reduce', 12)
    i = 1
    if (mod(rank, 2) == 1) i = 0
    call MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, i, 90, inter, ierr)
    call MPI_Comm_rank(inter, me, ierr)
    partner = rank + 1
    if (mod(rank, 2) == 1) partner = rank - 1
    call MPI_Sendrecv(sbuf, 50, MPI_DOUBLE_PRECISION, me, 91, rbuf, 50, MPI_DOUBLE_PRECISION, me, 91, inter, &
                      MPI_STATUS_IGNORE, ierr)
    call p2p('irecv', .false., 400, partner, .false.)
    call p2p('isend', .true., 400, partner, .false.)
    call add('wait', 2_8)
    call MPI_Intercomm_merge(inter, mod(rank, 2) == 1, merged, ierr)
    call MPI_Allgather(sbuf, 1, MPI_DOUBLE_PRECISION, rbuf, 1, MPI_DOUBLE_PRECISION, merged, ierr)
    call coll('allgather', 8)
    call MPI_Comm_free(half, ierr)
    call MPI_Comm_free(dup, ierr)
    call MPI_Comm_free(shared, ierr)
    call MPI_Comm_free(cart, ierr)
    call MPI_Comm_free(row, ierr)
    call MPI_Comm_free(graph, ierr)
    call MPI_Comm_free(dist, ierr)
    call MPI_Comm_free(adjacent, ierr)
    call MPI_Comm_free(info_dup, ierr)
    call MPI_Comm_free(inter, ierr)
    call MPI_Comm_free(merged, ierr)
  end subroutine communicators
end program mpi3_calls_f

! Through mpif.h: a send and a receive, an allgatherv, an ibarrier.
subroutine mpif_h_part(rank, right, left, tally)
  implicit none
  include 'mpif.h'
  integer, intent(in) :: rank, right, left
  integer(kind=8), intent(inout) :: tally(*)
  integer :: ierr, req, counts(4), displs(4), i
  double precision :: s(16), r(16)
  s = 2.0d0
  if (mod(rank, 2) == 0) then
    call MPI_Send(s, 4, MPI_DOUBLE_PRECISION, right, 100, MPI_COMM_WORLD, ierr)
    call MPI_Recv(r, 4, MPI_DOUBLE_PRECISION, left, 100, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  else
    call MPI_Recv(r, 4, MPI_DOUBLE_PRECISION, left, 100, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Send(s, 4, MPI_DOUBLE_PRECISION, right, 100, MPI_COMM_WORLD, ierr)
  end if
  tally(1) = tally(1) + 1      ! send
  tally(2) = tally(2) + 1      ! recv
  tally(36) = tally(36) + 32   ! send_bytes
  tally(37) = tally(37) + 32   ! recv_bytes
  do i = 1, 4
    counts(i) = i
    displs(i) = i * 4 - 4
  end do
  call MPI_Allgatherv(s, counts(rank + 1), MPI_DOUBLE_PRECISION, r, counts, displs, MPI_DOUBLE_PRECISION, &
                      MPI_COMM_WORLD, ierr)
  tally(15) = tally(15) + 1    ! allgatherv
  tally(38) = tally(38) + 80   ! coll_bytes: 8 x (1 + 2 + 3 + 4)
  call MPI_Ibarrier(MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  tally(21) = tally(21) + 1    ! ibarrier
  tally(5) = tally(5) + 1      ! wait
end subroutine mpif_h_part

! Through mpi_f08: non-blocking exchange, a persistent send, a matched
! probe, an ialltoallw and a gatherv.
subroutine f08_part(rank, right, left, tally)
  use mpi_f08
  implicit none
  integer, intent(in) :: rank, right, left
  integer(kind=8), intent(inout) :: tally(*)
  type(MPI_Request) :: req(2)
  type(MPI_Message) :: msg
  type(MPI_Status) :: st
  type(MPI_Datatype) :: types(4)
  integer :: counts(4), displs(4), i, pair_bytes
  double precision :: s(256), r(256)
  s = 3.0d0
  call MPI_Irecv(r, 16, MPI_DOUBLE_PRECISION, left, 110, MPI_COMM_WORLD, req(1))
  call MPI_Isend(s, 16, MPI_DOUBLE_PRECISION, right, 110, MPI_COMM_WORLD, req(2))
  call MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
  tally(3) = tally(3) + 1; tally(4) = tally(4) + 1; tally(5) = tally(5) + 2
  tally(36) = tally(36) + 128; tally(37) = tally(37) + 128
  call MPI_Send_init(s, 8, MPI_DOUBLE_PRECISION, right, 111, MPI_COMM_WORLD, req(1))
  call MPI_Start(req(1))
  call MPI_Mprobe(left, 111, MPI_COMM_WORLD, msg, st)
  call MPI_Mrecv(r, 8, MPI_DOUBLE_PRECISION, msg, MPI_STATUS_IGNORE)
  call MPI_Wait(req(1), MPI_STATUS_IGNORE)
  call MPI_Request_free(req(1))
  tally(3) = tally(3) + 1; tally(2) = tally(2) + 1; tally(5) = tally(5) + 1
  tally(36) = tally(36) + 64; tally(37) = tally(37) + 64
  pair_bytes = 0
  do i = 1, 4
    counts(i) = rank + i
    displs(i) = (i - 1) * 256
    if (mod(rank + i, 2) == 0) then
      types(i) = MPI_DOUBLE_PRECISION
      pair_bytes = pair_bytes + 8 * counts(i)
    else
      types(i) = MPI_INTEGER
      pair_bytes = pair_bytes + 4 * counts(i)
    end if
  end do
  call MPI_Ialltoallw(s, counts, displs, types, r, counts, displs, types, MPI_COMM_WORLD, req(1))
  call MPI_Wait(req(1), MPI_STATUS_IGNORE)
  tally(29) = tally(29) + 1; tally(5) = tally(5) + 1; tally(38) = tally(38) + pair_bytes
  do i = 1, 4
    counts(i) = i
    displs(i) = (i - 1) * 8
  end do
  call MPI_Gatherv(s, counts(rank + 1), MPI_DOUBLE_PRECISION, r, counts, displs, MPI_DOUBLE_PRECISION, 3, &
                   MPI_COMM_WORLD)
  tally(16) = tally(16) + 1
  if (rank == 3) then
    tally(38) = tally(38) + 80
  else
    tally(38) = tally(38) + 8 * counts(rank + 1)
  end if
end subroutine f08_part
