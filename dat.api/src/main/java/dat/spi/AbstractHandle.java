// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import dat.api.DatException;
import dat.api.DatReturnSubtype;

/**
 * An object of an IA: every DAT object but the IA itself. It knows its IA ({@link #owner()}), and its
 * {@link #close()} ({@code dat_*_free}) runs the IA's free protocol: refused while another live object of the IA
 * uses this one, else {@link #destroy()} under the IA's lifecycle lock.
 *
 * <p>Each DAT object has its own base beside this one ({@link AbstractPz}, {@link AbstractEvd}, ...), which fixes
 * the return codes DAT gives for that kind of handle and the checks every provider makes the same way. A provider
 * extends those, not this class directly.
 *
 * @param <I> the provider's IA class
 */
public abstract class AbstractHandle<I extends AbstractIa<I, ?, ?, ?, ?>> extends ProviderHandle {

    private final I ia;

    /**
     * Ties the object to the IA that frees it.
     *
     * @param ia the IA the object belongs to
     */
    protected AbstractHandle(I ia) {
        if (ia == null) {
            throw new NullPointerException("ia");
        }
        this.ia = ia;
    }

    /** {@return the IA this object belongs to} */
    public final I owner() {
        return ia;
    }

    /**
     * {@code dat_*_free}: frees the object through its IA ({@link AbstractIa}'s free protocol). Idempotent.
     *
     * @throws DatException {@code DAT_INVALID_STATE} with {@link #inUseSubtype()} while another live object uses it
     */
    @Override
    public void close() {
        ia.free(this);
    }

    /**
     * Whether {@code other} is an open object of the same IA: the handle check of a data-path call that names
     * another object (an RMR bind's EP and LMR). Allocation-free.
     *
     * @param other an object of this provider
     * @return {@code true} when it belongs to this object's IA and is not closed
     */
    protected final boolean sibling(AbstractHandle<?> other) {
        return other.ia == ia && !other.isClosed();
    }

    /**
     * Resolves a handle argument of a control-path call to an open object of this object's IA.
     *
     * @param <T> the provider class expected
     * @param handle the consumer's handle, possibly {@code null}
     * @param type the provider class expected
     * @param subtype the {@code DAT_INVALID_HANDLE} subtype naming the argument
     * @param call the DAT call, for the message
     * @param arg the argument's name, for the message
     * @return the object
     * @throws DatException {@code DAT_INVALID_HANDLE} when it is {@code null}, of another IA or provider, or closed
     */
    protected final <T extends AbstractHandle<I>> T own(Object handle, Class<T> type, DatReturnSubtype subtype,
                                                        String call, String arg) {
        return ia.own(handle, type, subtype, call, arg);
    }
}
