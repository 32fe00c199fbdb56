// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import dat.api.DatException;
import dat.api.DatHandle;
import dat.api.DatHandleType;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;

/**
 * What every provider object shares: the closed flag, the consumer context ({@code dat_set_consumer_context}) and
 * the hooks of the free protocol that {@link HandleSet} runs. A provider's objects extend it through the shell
 * ({@link AbstractIa}, {@link AbstractHandle} and the base of each DAT object, which fill in the hooks DAT fixes for
 * that kind); the IA frees them through its {@link HandleSet}, which refuses while another live object
 * {@linkplain #dependsOn depends on} one.
 */
public abstract class ProviderHandle implements DatHandle {

    private volatile boolean closed;
    private volatile Object consumerContext;

    /** For subclasses. */
    protected ProviderHandle() {
    }

    /** {@return the subtype of {@code DAT_INVALID_HANDLE} for this kind of handle} */
    protected abstract DatReturnSubtype invalidHandleSubtype();

    /** {@return the subtype of {@code DAT_INVALID_STATE} when this object is still in use} */
    protected abstract DatReturnSubtype inUseSubtype();

    /** {@return the DAT free call, for messages: {@code dat_pz_free}} */
    protected abstract String freeCall();

    /**
     * Releases the object and its resources ({@code dat_*_free}, or {@code dat_ia_close(ABRUPT)} of its IA). Called
     * once, with the owning IA's lifecycle lock held.
     *
     * <p>Call {@link #markClosed()} before releasing anything a concurrent call could still reach (a queue, a
     * registration, a context in a lookup table), so that from then on every call answers
     * {@code DAT_INVALID_HANDLE} instead of touching what is being released. The free protocol marks the object
     * closed once this returns in any case, so a forgotten call cannot leave a freed object answering as if alive;
     * but only the override knows where in its teardown the point of no return is.
     *
     * <p>Every context the object handed out ({@code lmr_context}, {@code rmr_context}) must stop resolving before
     * this returns: a peer's RDMA through it afterwards is refused and moves no byte.
     */
    protected abstract void destroy();

    /** Last check before a consumer's free, with the IA's lifecycle lock held; may throw {@code DAT_INVALID_STATE}. */
    protected void checkFree() {
    }

    /**
     * {@return whether this live object uses {@code other}, so {@code other} cannot be freed} Asked only about objects
     * of the kinds {@link #mayDependOn} admits; an override that names another kind widens that too.
     *
     * @param other another object of the same IA
     */
    protected boolean dependsOn(ProviderHandle other) {
        return false;
    }

    /**
     * {@return whether an object of this kind may ever {@linkplain #dependsOn depend on} an object of {@code kind}}
     * {@link HandleSet} asks only those objects when one of {@code kind} is freed, so {@code dat_lmr_free} does not
     * ask every live LMR of the IA (regression, R11: a free was O(n) in the live objects). The default is DAT's object
     * model, as the shell's {@code dependsOn} methods follow it: an EP uses its PZ, EVDs and SRQ; an LMR and an SRQ
     * their PZ; an RMR its PZ and the LMRs it is bound to; an EVD its CNO; a PSP its EVD; an RSP its EVD and EP; other
     * kinds may use anything. A provider whose {@code dependsOn} names another kind overrides this too. Must answer
     * the same for the object's whole life: it is asked when the object is registered.
     *
     * @param kind a kind of object
     */
    protected boolean mayDependOn(DatHandleType kind) {
        return switch (handleType()) {
            case EP -> kind == DatHandleType.PZ || kind == DatHandleType.EVD || kind == DatHandleType.SRQ;
            case LMR, SRQ -> kind == DatHandleType.PZ;
            case RMR -> kind == DatHandleType.PZ || kind == DatHandleType.LMR;
            case EVD -> kind == DatHandleType.CNO;
            case PSP -> kind == DatHandleType.EVD;
            case RSP -> kind == DatHandleType.EVD || kind == DatHandleType.EP;
            default -> true;
        };
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

    /** Marks the object closed; every later call on it answers {@code DAT_INVALID_HANDLE}. */
    protected final void markClosed() {
        closed = true;
    }

    /**
     * Refuses a call on a closed object.
     *
     * @param call the DAT call, for the message
     * @throws DatException {@code DAT_INVALID_HANDLE} with this kind's subtype when the object is closed
     */
    public final void requireOpen(String call) {
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
