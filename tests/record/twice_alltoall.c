/// A pairwise alltoall that delivers one block twice: after the p steps, every rank sends its
/// block for rank + 1 once more into the same place. The buffers end right; exactly-once
/// (delivery) names the duplicate.
#include <mpi.h>

int twice_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Aint lb, send_extent, recv_extent;
  MPI_Type_get_extent(sendtype, &lb, &send_extent);
  MPI_Type_get_extent(recvtype, &lb, &recv_extent);
  for (int step = 0; step <= size; ++step) {
    int s = step == size ? 1 : step;  // step p repeats step 1
    int to = (rank + s) % size, from = (rank - s + size) % size;
    int err = MPI_Sendrecv((const char*)sendbuf + to * send_extent * sendcount, sendcount, sendtype,
                           to, 12, (char*)recvbuf + from * recv_extent * recvcount, recvcount,
                           recvtype, from, 12, comm, MPI_STATUS_IGNORE);
    if (err != MPI_SUCCESS) return err;
  }
  return MPI_SUCCESS;
}
