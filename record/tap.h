/// The two taps that record a collective's point-to-point messages while it runs.
#ifndef PHASECHECK_RECORD_TAP_H
#define PHASECHECK_RECORD_TAP_H

/// Level pml (Open MPI 4.1): replaces the entries of libmpi's `mca_pml` (isend, send, irecv, recv,
/// isend_init, irecv_init, start) and `ompi_request_functions` (wait*, test*) with recording
/// wrappers. Call after MPI_Init, around the collective call only.
void tap_pml_install(void);
/// Puts the saved entries back.
void tap_pml_remove(void);

/// Level pmpi: the driver's MPI_Send, MPI_Isend, ... record while this is on (the routine runs);
/// otherwise they only forward to PMPI_.
void tap_pmpi_enable(int on);

#endif
