// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import dat.api.DatCr;
import dat.api.DatEp;
import dat.api.DatHandleType;
import dat.api.DatReturnSubtype;

/**
 * The shell of a connection request ({@code DAT_CR_HANDLE}) waiting at a PSP or RSP: answered by exactly one of
 * {@code dat_cr_accept}, {@code dat_cr_reject} or {@code dat_cr_handoff}, after which the handle is closed. Freeing
 * a pending request, as an abrupt {@code dat_ia_close} or the free of its RSP does, rejects it
 * ({@link #rejectQuietly()}). {@link #acceptingEp} resolves the EP of {@code dat_cr_accept} as every provider must.
 *
 * @param <I> the provider's IA class
 * @param <T> its EP class
 */
public abstract class AbstractCr<I extends AbstractIa<I, ?, ?, ?, ?>, T extends AbstractEp<I>>
        extends AbstractHandle<I> implements DatCr {

    /**
     * Creates the shell's part of a connection request, as it arrives.
     *
     * @param ia the IA the request arrived at
     */
    protected AbstractCr(I ia) {
        super(ia);
    }

    @Override
    public final DatHandleType handleType() {
        return DatHandleType.CR;
    }

    @Override
    protected final DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_CR;
    }

    @Override
    protected final DatReturnSubtype inUseSubtype() {
        return DatReturnSubtype.NO_SUBTYPE;
    }

    @Override
    protected final String freeCall() {
        return "dat_cr_reject";
    }

    /** Freeing a request nobody answered rejects it, so the requester is not left waiting. */
    @Override
    public final void close() {
        rejectQuietly();
    }

    /** Destroyed with its IA: rejected if still pending. */
    @Override
    protected final void destroy() {
        rejectQuietly();
    }

    /** Rejects the request if it is still pending, and closes it; does nothing once it was answered. */
    protected abstract void rejectQuietly();

    /**
     * The EP {@code dat_cr_accept} connects: a request through an RSP is accepted on the EP the RSP reserved
     * ({@code ep_handle} that EP or {@code null}); through a PSP the consumer supplies an open EP of this IA, since
     * {@code ep_creator} is NEVER.
     *
     * @param call the DAT call, for messages
     * @param ep the consumer's {@code ep_handle}
     * @param reserved the EP of the RSP the request came through, or {@code null} for a PSP
     * @return the EP to connect
     */
    protected final T acceptingEp(String call, DatEp ep, T reserved) {
        if (reserved != null) {
            if (ep != null && ep != reserved) {
                throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG2,
                        call + ": ep_handle must be null or the RSP's reserved EP");
            }
            return reserved;
        }
        if (ep == null) {
            throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG2,
                    call + ": ep_handle is null; ep_creator is NEVER, so the consumer supplies the EP");
        }
        return owner().resolve(ep, DatHandleType.EP, DatReturnSubtype.INVALID_HANDLE_EP, call, "ep_handle");
    }
}
