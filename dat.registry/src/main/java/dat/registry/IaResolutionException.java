// SPDX-License-Identifier: Apache-2.0
package dat.registry;

import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;

/**
 * {@link DatRegistry#resolve} found no IA to use: the name is unknown, or it and its provider are unavailable. A
 * {@link DatException} ({@link DatReturn#PROVIDER_NOT_FOUND}, as {@code dat_ia_open} answers an unknown name), since
 * the control path throws one unchecked exception type.
 *
 * <p>{@link #reason()} is the message without the {@code DAT_} prefix, for a command that prints it as its own:
 * {@code unknown IA 'x'; IAs: ...}, {@code IA x (provider p) is unavailable: ...}, {@code provider p is
 * unavailable: ...}. Every name and reason in it is escaped, so it is safe to print on one line.
 */
public final class IaResolutionException extends DatException {

    private static final long serialVersionUID = 1L;

    /** The message without the return code. */
    private final String reason;

    IaResolutionException(DatReturnSubtype subtype, String reason) {
        super(DatReturn.PROVIDER_NOT_FOUND, subtype, reason);
        this.reason = reason;
    }

    /** {@return why no IA could be used, naming what exists or the unavailable reason, escaped} */
    public String reason() {
        return reason;
    }
}
