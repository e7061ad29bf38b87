/// A routine with the signature of MPI_Alltoall that gives up: rank 0 calls MPI_Abort after
/// sending one message; the recording must end with its abort line and the case count as failed.
#include <mpi.h>

int aborting_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  (void)recvbuf, (void)recvcount, (void)recvtype;
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (rank == 0 && sendbuf != MPI_IN_PLACE) {
    MPI_Send(sendbuf, sendcount, sendtype, size - 1, 7, comm);
    MPI_Abort(comm, 17);
  }
  // The others wait for a message that never comes; the abort ends them.
  MPI_Recv(NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, 8, comm, MPI_STATUS_IGNORE);
  return MPI_SUCCESS;
}
