// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * A Consumer Notification Object: {@code DAT_CNO_HANDLE}. EVDs bound to it (and enabled) trigger it when an
 * event arrives, so one thread can wait on many EVDs.
 *
 * <p>Only providers whose {@link DatIa#createCno} succeeds have CNOs; the others answer
 * {@link DatReturn#MODEL_NOT_SUPPORTED} there.
 */
public interface DatCno extends DatHandle {

    /**
     * The wait proxy agent of {@code dat_cno_create} ({@code DAT_OS_WAIT_PROXY_AGENT}): called instead of
     * waking a waiter when an EVD triggers the CNO.
     */
    @FunctionalInterface
    interface Agent {

        /**
         * Called when the CNO triggers.
         *
         * @param evd the EVD that triggered the CNO, or {@code null} when the last EVD bound to the CNO was freed
         *     ({@code dat_evd_free}): nothing can trigger it any more
         */
        void triggered(DatEvd evd);
    }

    /**
     * {@code dat_cno_wait}: waits until an enabled EVD bound to this CNO gets an event. An EVD that is disabled, or
     * that a thread is waiting on in {@link DatEvd#await} ("Waited"), does not notify: that waiter takes the event.
     * While a thread waits here, {@link #close} ({@code dat_cno_free}) is refused with
     * {@link DatReturn#INVALID_STATE}.
     *
     * @param timeoutMicros how long, {@link Dat#DAT_TIMEOUT_INFINITE} for ever
     * @return the EVD that triggered, or {@code null} when the wait was unblocked without one: the last EVD bound
     *     to the CNO was freed, or the IA was closed
     * @throws DatException {@link DatReturn#QUEUE_EMPTY} when the timeout expired without a notification (uDAPL
     *     1.2's return, not {@code DAT_TIMEOUT_EXPIRED}), {@link DatReturn#INTERRUPTED_CALL},
     *     {@link DatReturn#INVALID_HANDLE}, {@link DatReturn#INVALID_PARAMETER}
     */
    DatEvd await(long timeoutMicros);

    /**
     * {@code dat_cno_modify_agent}.
     *
     * @param agent the new agent or {@code null}
     * @throws DatException {@link DatReturn#INVALID_HANDLE}
     */
    void modifyAgent(Agent agent);

    /**
     * {@code dat_cno_query}.
     *
     * @return the CNO parameters
     * @throws DatException {@link DatReturn#INVALID_HANDLE}
     */
    DatCnoParam query();
}
