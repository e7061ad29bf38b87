/// A pairwise alltoall that forgets the self copy: steps 1 .. p-1 only, so every rank's own
/// block never reaches its receive buffer (placement names the element left unwritten).
#include <mpi.h>

int noself_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Aint lb, send_extent, recv_extent;
  MPI_Type_get_extent(sendtype, &lb, &send_extent);
  MPI_Type_get_extent(recvtype, &lb, &recv_extent);
  for (int step = 1; step < size; ++step) {
    int to = (rank + step) % size, from = (rank - step + size) % size;
    int err = MPI_Sendrecv((const char*)sendbuf + to * send_extent * sendcount, sendcount, sendtype,
                           to, 11, (char*)recvbuf + from * recv_extent * recvcount, recvcount,
                           recvtype, from, 11, comm, MPI_STATUS_IGNORE);
    if (err != MPI_SUCCESS) return err;
  }
  return MPI_SUCCESS;
}
