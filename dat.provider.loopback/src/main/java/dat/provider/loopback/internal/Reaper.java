// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

/**
 * What must hear that a completion event left its EVD: an SRQ whose buffer stops being outstanding, or an EP whose
 * request slot frees. Called once per queued completion, when it is reaped, or at once when it is never queued
 * (suppressed, no EVD, EVD overflow, EVD freed).
 */
interface Reaper {

    /** The completion is reaped (or will never be queued). */
    void reaped();
}
