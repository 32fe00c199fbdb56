// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * What every DAT handle has in common.
 *
 * <p>{@link #close()} is the object's {@code dat_*_free} (for an IA, a graceful {@code dat_ia_close}). It is
 * idempotent: closing a closed handle does nothing. Closing a handle that still has live children (an IA
 * with a PZ, a PZ with an LMR, an EVD an EP still uses, ...) throws {@link DatException} with
 * {@link DatReturn#INVALID_STATE} and changes nothing; freeing a connected EP first disconnects it abruptly, as
 * {@code dat_ep_free} does. Every other call on a closed handle fails with
 * {@link DatReturn#INVALID_HANDLE}: the control path throws it, the data path returns it.
 */
public interface DatHandle extends AutoCloseable {

    /**
     * {@code dat_get_handle_type}: which DAT object this handle is.
     *
     * @return the handle type; never {@code null}
     */
    DatHandleType handleType();

    /**
     * {@code dat_get_consumer_context}: the value the consumer attached with {@link #consumerContext(Object)}.
     *
     * @return the consumer context, {@code null} when none was set
     * @throws DatException {@link DatReturn#INVALID_HANDLE} when the handle is closed
     */
    Object consumerContext();

    /**
     * {@code dat_set_consumer_context}: attaches an opaque consumer value to this handle. The provider never
     * interprets it.
     *
     * @param context any value, {@code null} to clear
     * @throws DatException {@link DatReturn#INVALID_HANDLE} when the handle is closed
     */
    void consumerContext(Object context);

    /**
     * Whether {@link #close()} has run (or the handle was destroyed by an abrupt close of its IA).
     *
     * @return {@code true} once the handle is freed
     */
    boolean isClosed();

    /**
     * {@code dat_*_free}: releases the object.
     *
     * @throws DatException {@link DatReturn#INVALID_STATE} when the object still has live children (or, for an
     *     EVD, CNO, PZ or SRQ, is still used by another object)
     */
    @Override
    void close();
}
