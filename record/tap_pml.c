/// Level pml: Open MPI's coll/base algorithms send through the PML function table
/// (MCA_PML_CALL(isend) is mca_pml.pml_isend: Debian builds without MCA_ompi_pml_DIRECT_CALL) and
/// wait through ompi_request_functions; both are exported, writable data of libmpi, so replacing
/// their entries shows every message of the library's own algorithms.
#include <stdlib.h>

// ompi_config.h first: Open MPI's internal headers expect its definitions.
#include "ompi_config.h"

#include "ompi/mca/pml/pml.h"
#include "ompi/request/request.h"

#include "events.h"
#include "tap.h"

static mca_pml_base_module_t saved_pml;
static ompi_request_fns_t saved_requests;

static int tap_isend(const void* buf, size_t count, struct ompi_datatype_t* type, int dst, int tag,
                     mca_pml_base_send_mode_t mode, struct ompi_communicator_t* comm,
                     struct ompi_request_t** request) {
  int rc = saved_pml.pml_isend(buf, count, type, dst, tag, mode, comm, request);
  // Packed after the call: a sender's buffer cannot change before isend returns, and only then is
  // the request (the key) known.
  if (rc == OMPI_SUCCESS) events_post(events_send, *request, buf, count, type, dst, tag, 0);
  return rc;
}

static int tap_send(const void* buf, size_t count, struct ompi_datatype_t* type, int dst, int tag,
                    mca_pml_base_send_mode_t mode, struct ompi_communicator_t* comm) {
  int slot = events_post(events_send, NULL, buf, count, type, dst, tag, 1);
  int rc = saved_pml.pml_send(buf, count, type, dst, tag, mode, comm);
  if (rc == OMPI_SUCCESS) events_complete_slot(slot, NULL);
  return rc;
}

static int tap_irecv(void* buf, size_t count, struct ompi_datatype_t* type, int src, int tag,
                     struct ompi_communicator_t* comm, struct ompi_request_t** request) {
  int rc = saved_pml.pml_irecv(buf, count, type, src, tag, comm, request);
  if (rc == OMPI_SUCCESS) events_post(events_recv, *request, buf, count, type, src, tag, 0);
  return rc;
}

static int tap_recv(void* buf, size_t count, struct ompi_datatype_t* type, int src, int tag,
                    struct ompi_communicator_t* comm, ompi_status_public_t* status) {
  int slot = events_post(events_recv, NULL, buf, count, type, src, tag, 1);
  ompi_status_public_t own;
  int rc = saved_pml.pml_recv(buf, count, type, src, tag, comm, &own);
  if (rc == OMPI_SUCCESS) events_complete_slot(slot, &own);
  if (status != MPI_STATUS_IGNORE) *status = own;
  return rc;
}

static int tap_isend_init(const void* buf, size_t count, struct ompi_datatype_t* type, int dst,
                          int tag, mca_pml_base_send_mode_t mode, struct ompi_communicator_t* comm,
                          struct ompi_request_t** request) {
  int rc = saved_pml.pml_isend_init(buf, count, type, dst, tag, mode, comm, request);
  if (rc == OMPI_SUCCESS)
    events_define_persistent(events_send, *request, buf, count, type, dst, tag);
  return rc;
}

static int tap_irecv_init(void* buf, size_t count, struct ompi_datatype_t* type, int src, int tag,
                          struct ompi_communicator_t* comm, struct ompi_request_t** request) {
  int rc = saved_pml.pml_irecv_init(buf, count, type, src, tag, comm, request);
  if (rc == OMPI_SUCCESS)
    events_define_persistent(events_recv, *request, buf, count, type, src, tag);
  return rc;
}

static int tap_start(size_t count, struct ompi_request_t** requests) {
  for (size_t i = 0; i < count; ++i) events_start(requests[i]);
  return saved_pml.pml_start(count, requests);
}

/// The wait and test wrappers hand the library their own statuses: the collectives pass
/// MPI_STATUS_IGNORE, and a receive's complete line needs its source, tag and byte count.
static ompi_status_public_t* statuses_for(size_t count) {
  ompi_status_public_t* own = malloc((count > 0 ? count : 1) * sizeof *own);
  if (own == NULL) abort();
  return own;
}

/// The keys of REQUESTS before the call: a completed request is set to MPI_REQUEST_NULL.
static ompi_request_t** keys_of(size_t count, ompi_request_t** requests) {
  ompi_request_t** keys = malloc((count > 0 ? count : 1) * sizeof *keys);
  if (keys == NULL) abort();
  for (size_t i = 0; i < count; ++i) keys[i] = requests[i];
  return keys;
}

static int tap_wait(ompi_request_t** request, ompi_status_public_t* status) {
  ompi_request_t* key = *request;
  ompi_status_public_t own;
  int rc = saved_requests.req_wait(request, &own);
  if (rc == OMPI_SUCCESS) events_complete(key, &own);
  if (status != MPI_STATUS_IGNORE) *status = own;
  return rc;
}

static int tap_test(ompi_request_t** request, int* completed, ompi_status_public_t* status) {
  ompi_request_t* key = *request;
  ompi_status_public_t own;
  int rc = saved_requests.req_test(request, completed, &own);
  if (rc == OMPI_SUCCESS && *completed) {
    events_complete(key, &own);
    if (status != MPI_STATUS_IGNORE) *status = own;
  }
  return rc;
}

static void complete_all(size_t count, ompi_request_t** keys, ompi_status_public_t* own,
                         ompi_status_public_t* statuses) {
  for (size_t i = 0; i < count; ++i) {
    events_complete(keys[i], &own[i]);
    if (statuses != MPI_STATUSES_IGNORE) statuses[i] = own[i];
  }
}

static int tap_wait_all(size_t count, ompi_request_t** requests, ompi_status_public_t* statuses) {
  ompi_request_t** keys = keys_of(count, requests);
  ompi_status_public_t* own = statuses_for(count);
  int rc = saved_requests.req_wait_all(count, requests, own);
  if (rc == OMPI_SUCCESS) complete_all(count, keys, own, statuses);
  // On error the statuses are the library's: MPI_ERR_IN_STATUS reports per request.
  else if (statuses != MPI_STATUSES_IGNORE)
    for (size_t i = 0; i < count; ++i) statuses[i] = own[i];
  free(own);
  free(keys);
  return rc;
}

static int tap_test_all(size_t count, ompi_request_t** requests, int* completed,
                        ompi_status_public_t* statuses) {
  ompi_request_t** keys = keys_of(count, requests);
  ompi_status_public_t* own = statuses_for(count);
  int rc = saved_requests.req_test_all(count, requests, completed, own);
  if (rc == OMPI_SUCCESS && *completed) complete_all(count, keys, own, statuses);
  free(own);
  free(keys);
  return rc;
}

static int tap_wait_any(size_t count, ompi_request_t** requests, int* index,
                        ompi_status_public_t* status) {
  ompi_request_t** keys = keys_of(count, requests);
  ompi_status_public_t own;
  int rc = saved_requests.req_wait_any(count, requests, index, &own);
  if (rc == OMPI_SUCCESS && *index != MPI_UNDEFINED) events_complete(keys[*index], &own);
  if (status != MPI_STATUS_IGNORE) *status = own;
  free(keys);
  return rc;
}

static int tap_test_any(size_t count, ompi_request_t** requests, int* index, int* completed,
                        ompi_status_public_t* status) {
  ompi_request_t** keys = keys_of(count, requests);
  ompi_status_public_t own;
  int rc = saved_requests.req_test_any(count, requests, index, completed, &own);
  if (rc == OMPI_SUCCESS && *completed && *index != MPI_UNDEFINED) {
    events_complete(keys[*index], &own);
    if (status != MPI_STATUS_IGNORE) *status = own;
  }
  free(keys);
  return rc;
}

static void complete_some(int done, const int* indices, ompi_request_t** keys,
                          ompi_status_public_t* own, ompi_status_public_t* statuses) {
  for (int i = 0; i < done; ++i) {
    events_complete(keys[indices[i]], &own[i]);
    if (statuses != MPI_STATUSES_IGNORE) statuses[i] = own[i];
  }
}

/// wait_some and test_some share one signature and one meaning of their results.
static int record_some(ompi_request_wait_some_fn_t some, size_t count, ompi_request_t** requests,
                       int* outcount, int* indices, ompi_status_public_t* statuses) {
  ompi_request_t** keys = keys_of(count, requests);
  ompi_status_public_t* own = statuses_for(count);
  int rc = some(count, requests, outcount, indices, own);
  if (rc == OMPI_SUCCESS && *outcount != MPI_UNDEFINED)
    complete_some(*outcount, indices, keys, own, statuses);
  free(own);
  free(keys);
  return rc;
}

static int tap_wait_some(size_t count, ompi_request_t** requests, int* outcount, int* indices,
                         ompi_status_public_t* statuses) {
  return record_some(saved_requests.req_wait_some, count, requests, outcount, indices, statuses);
}

static int tap_test_some(size_t count, ompi_request_t** requests, int* outcount, int* indices,
                         ompi_status_public_t* statuses) {
  return record_some(saved_requests.req_test_some, count, requests, outcount, indices, statuses);
}

void tap_pml_install(void) {
  saved_pml = mca_pml;
  saved_requests = ompi_request_functions;
  mca_pml.pml_isend = tap_isend;
  mca_pml.pml_send = tap_send;
  mca_pml.pml_irecv = tap_irecv;
  mca_pml.pml_recv = tap_recv;
  mca_pml.pml_isend_init = tap_isend_init;
  mca_pml.pml_irecv_init = tap_irecv_init;
  mca_pml.pml_start = tap_start;
  ompi_request_functions.req_wait = tap_wait;
  ompi_request_functions.req_test = tap_test;
  ompi_request_functions.req_wait_all = tap_wait_all;
  ompi_request_functions.req_test_all = tap_test_all;
  ompi_request_functions.req_wait_any = tap_wait_any;
  ompi_request_functions.req_test_any = tap_test_any;
  ompi_request_functions.req_wait_some = tap_wait_some;
  ompi_request_functions.req_test_some = tap_test_some;
}

void tap_pml_remove(void) {
  mca_pml = saved_pml;
  ompi_request_functions = saved_requests;
}
