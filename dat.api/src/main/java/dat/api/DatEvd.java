// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * An Event Dispatcher: {@code DAT_EVD_HANDLE}, a queue of events of the kinds its {@link DatEvdFlags} allow.
 *
 * <p>The data-path calls ({@link #dequeue}, {@link #poll}, {@link #await}, {@link #postSoftwareEvent})
 * return a DAT status and allocate nothing; events are written into a consumer-owned {@link DatEvent}.
 *
 * <p>When more events arrive than the queue holds, the EVD overflows: the event is lost and
 * {@link DatEventType#ASYNC_ERROR_EVD_OVERFLOW} is posted to the IA's async EVD.
 */
public interface DatEvd extends DatHandle {

    /**
     * {@code dat_evd_dequeue}: takes the first event, without waiting.
     *
     * @param event receives the event
     * @return {@link DatReturn#DAT_SUCCESS}, {@link DatReturn#DAT_QUEUE_EMPTY} when there is none,
     *     {@link DatReturn#DAT_INVALID_HANDLE} when the EVD is closed,
     *     {@link DatReturn#DAT_INVALID_STATE} while a waiter is blocked in {@link #await} on it
     */
    int dequeue(DatEvent event);

    /**
     * Takes up to {@code limit} events, handing each to {@code handler} (Agrona's {@code poll(handler,
     * limit)}). The {@link DatEvent} passed to the handler is reused for the next event: copy what you keep.
     *
     * @param handler called once per event on the calling thread
     * @param limit the most events to take, at least 1
     * @return how many events were handled ({@code >= 0}), or a negative DAT status
     *     ({@link DatReturn#DAT_INVALID_HANDLE}, {@link DatReturn#DAT_INVALID_PARAMETER} for a limit below 1,
     *     {@link DatReturn#DAT_INVALID_STATE} while a waiter is blocked)
     */
    int poll(DatEventHandler handler, int limit);

    /**
     * {@code dat_evd_wait}: waits until at least {@code threshold} events are queued (or one, for EVDs other
     * than DTO EVDs), then dequeues the first.
     *
     * <p>Receives completing with signal unblock a waiter only as the EP's recv completion flags say: with
     * {@link DatCompletionFlags#SOLICITED_WAIT} only solicited ones, with
     * {@link DatCompletionFlags#EVD_THRESHOLD} once the threshold is met.
     *
     * <p>An EVD bound to a CNO may be waited on: the waiter "preempts the CNO" (uDAPL 1.2, {@code dat_cno_wait}),
     * so an event that arrives while it waits goes to it and does not trigger the CNO.
     *
     * @param timeoutMicros how long to wait, {@link Dat#DAT_TIMEOUT_INFINITE} for ever
     * @param threshold how many events must be queued before the waiter wakes, {@code 1..evd_qlen}
     * @param event receives the event; {@link DatEvent#nmore()} then says how many remain
     * @return {@link DatReturn#DAT_SUCCESS}, {@link DatReturn#DAT_TIMEOUT_EXPIRED},
     *     {@link DatReturn#DAT_INTERRUPTED_CALL} when the thread was interrupted,
     *     {@link DatReturn#DAT_INVALID_STATE} when the EVD is unwaitable (also for a waiter
     *     {@link #setUnwaitable()} woke) or another thread already waits,
     *     {@link DatReturn#DAT_INVALID_PARAMETER} for a bad threshold or timeout,
     *     {@link DatReturn#DAT_ABORT} when the EVD's free or its IA's close woke the waiter,
     *     {@link DatReturn#DAT_INVALID_HANDLE}
     */
    int await(long timeoutMicros, int threshold, DatEvent event);

    /**
     * {@code dat_evd_post_se}: posts a software event carrying {@code pointer}.
     *
     * @param pointer the consumer's value, returned in {@link DatEvent#softwareEventValue()}
     * @return {@link DatReturn#DAT_SUCCESS}, {@link DatReturn#DAT_QUEUE_FULL},
     *     {@link DatReturn#DAT_INVALID_PARAMETER} when the EVD lacks {@link DatEvdFlags#SOFTWARE},
     *     {@link DatReturn#DAT_INVALID_HANDLE}
     */
    int postSoftwareEvent(long pointer);

    /**
     * {@code dat_evd_enable}: lets events trigger the CNO again.
     *
     * @throws DatException {@link DatReturn#INVALID_HANDLE}
     */
    void enable();

    /**
     * {@code dat_evd_disable}: events are still queued but do not trigger the CNO.
     *
     * @throws DatException {@link DatReturn#INVALID_HANDLE}
     */
    void disable();

    /**
     * {@code dat_evd_set_unwaitable}: a blocked waiter wakes with {@link DatReturn#DAT_INVALID_STATE}, and later
     * waits fail with it until {@link #clearUnwaitable()} (uDAPL 1.2: "threads already blocked in dat_evd_wait()
     * are awakened and return with a DAT_INVALID_STATE error").
     *
     * @throws DatException {@link DatReturn#INVALID_HANDLE}
     */
    void setUnwaitable();

    /**
     * {@code dat_evd_clear_unwaitable}.
     *
     * @throws DatException {@link DatReturn#INVALID_HANDLE}
     */
    void clearUnwaitable();

    /**
     * {@code dat_evd_resize}.
     *
     * @param evdMinQlen the new minimum queue length
     * @throws DatException {@link DatReturn#INVALID_STATE} when more events are queued than fit,
     *     {@link DatReturn#INVALID_PARAMETER} for a length outside {@code 1..max_evd_qlen},
     *     {@link DatReturn#INSUFFICIENT_RESOURCES}, {@link DatReturn#INVALID_HANDLE}
     */
    void resize(int evdMinQlen);

    /**
     * {@code dat_evd_modify_cno}: attaches or detaches ({@code null}) a CNO.
     *
     * @param cno the new CNO or {@code null}
     * @throws DatException {@link DatReturn#INVALID_HANDLE}, {@link DatReturn#MODEL_NOT_SUPPORTED} when the
     *     provider has no CNO
     */
    void modifyCno(DatCno cno);

    /**
     * {@code dat_evd_query}.
     *
     * @return the EVD parameters
     * @throws DatException {@link DatReturn#INVALID_HANDLE}
     */
    DatEvdParam query();
}
