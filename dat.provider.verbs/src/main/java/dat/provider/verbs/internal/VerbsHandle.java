package dat.provider.verbs.internal;

import dat.api.DatException;
import dat.api.DatHandle;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;

/**
 * What every verbs object shares: the closed flag, the consumer context and the free protocol.
 *
 * <p>{@link #close()} goes through the owning IA's {@link VerbsIa#free}, which refuses while another live object
 * of the IA {@linkplain #dependsOn depends on} this one and otherwise calls {@link #destroy()}, which releases the
 * verbs resource.
 */
abstract class VerbsHandle implements DatHandle {

    private volatile boolean closed;
    private volatile Object consumerContext;

    /** @return the IA this object belongs to ({@code this} for an IA) */
    abstract VerbsIa owner();

    /** @return the subtype of {@code DAT_INVALID_HANDLE} for this kind of handle */
    abstract DatReturnSubtype invalidHandleSubtype();

    /** @return the subtype of {@code DAT_INVALID_STATE} when this object is still in use */
    abstract DatReturnSubtype inUseSubtype();

    /** @return the DAT free call, for messages: {@code dat_pz_free} */
    abstract String freeCall();

    /** Releases the object and its verbs resources. Called with the IA lifecycle lock held, once. */
    abstract void destroy();

    /** Last check before a consumer's free, with the IA lifecycle lock held; may throw {@code DAT_INVALID_STATE}. */
    void checkFree() {
    }

    /**
     * @param other another object of the same IA
     * @return whether this live object uses {@code other}, so {@code other} cannot be freed
     */
    boolean dependsOn(VerbsHandle other) {
        return false;
    }

    @Override
    public Object consumerContext() {
        requireOpen("dat_get_consumer_context");
        return consumerContext;
    }

    @Override
    public void consumerContext(Object context) {
        requireOpen("dat_set_consumer_context");
        this.consumerContext = context;
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        owner().free(this);
    }

    final void markClosed() {
        closed = true;
    }

    final void requireOpen(String call) {
        if (closed) {
            throw new DatException(DatReturn.INVALID_HANDLE, invalidHandleSubtype(),
                    call + ": the " + handleType() + " handle is closed");
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "@" + Integer.toHexString(System.identityHashCode(this))
                + (closed ? "[closed]" : "");
    }
}
