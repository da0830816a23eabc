! unrecorded.f90: Fortran calls that libibsec_capture does not record, for
! tests/python/test_capture_mpi3.py: one-sided communication (use mpi) and
! MPI-IO with a file name (a CHARACTER argument, whose hidden length the
! library's entry point must pass on). The file to write is the first
! argument. Runs on any number of processes; each makes every call once,
! MPI_Win_fence twice.
program unrecorded_f
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, win, fh
  integer(kind=MPI_ADDRESS_KIND) :: window_bytes, disp
  integer(kind=MPI_OFFSET_KIND) :: offset
  double precision :: window(4), x(4)
  character(len=1024) :: path

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  window = 0.0d0
  x = 1.0d0
  window_bytes = 32
  disp = 0
  call MPI_Win_create(window, window_bytes, 8, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call MPI_Put(x, 2, MPI_DOUBLE_PRECISION, mod(rank + 1, nprocs), disp, 2, MPI_DOUBLE_PRECISION, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call MPI_Win_free(win, ierr)
  call get_command_argument(1, path)
  call MPI_File_open(MPI_COMM_WORLD, trim(path), MPI_MODE_CREATE + MPI_MODE_WRONLY, MPI_INFO_NULL, fh, ierr)
  if (ierr /= MPI_SUCCESS) then
    write (0, '(2a)') 'unrecorded_f: cannot open ', trim(path)
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  offset = 32 * rank
  call MPI_File_write_at(fh, offset, x, 4, MPI_DOUBLE_PRECISION, MPI_STATUS_IGNORE, ierr)
  call MPI_File_close(fh, ierr)
  call MPI_Finalize(ierr)
end program unrecorded_f
