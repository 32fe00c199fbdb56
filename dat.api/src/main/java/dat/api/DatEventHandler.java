// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * Receives events from {@link DatEvd#poll}. The event object is reused: copy what you keep.
 */
@FunctionalInterface
public interface DatEventHandler {

    /**
     * Called once per dequeued event, on the polling thread.
     *
     * @param event the event, valid only during this call
     */
    void onEvent(DatEvent event);
}
