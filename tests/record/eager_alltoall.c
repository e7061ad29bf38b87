/// The classic unsafe alltoall: every rank MPI_Send's to all, then MPI_Recv's from all. It
/// completes only because small messages are buffered eagerly; with no buffering every rank
/// waits in its first send for a receive nobody has posted (deadlock names the cycle).
#include <mpi.h>

int eager_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Aint lb, send_extent, recv_extent;
  MPI_Type_get_extent(sendtype, &lb, &send_extent);
  MPI_Type_get_extent(recvtype, &lb, &recv_extent);
  for (int i = 1; i <= size; ++i) {
    int to = (rank + i) % size;
    int err = MPI_Send((const char*)sendbuf + to * send_extent * sendcount, sendcount, sendtype, to,
                       14, comm);
    if (err != MPI_SUCCESS) return err;
  }
  for (int i = 1; i <= size; ++i) {
    int from = (rank - i + size) % size;
    int err = MPI_Recv((char*)recvbuf + from * recv_extent * recvcount, recvcount, recvtype, from,
                       14, comm, MPI_STATUS_IGNORE);
    if (err != MPI_SUCCESS) return err;
  }
  return MPI_SUCCESS;
}
