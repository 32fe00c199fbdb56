// SPDX-License-Identifier: Apache-2.0
/**
 * The DAT/uDAPL 1.2 API for Java.
 *
 * <p>{@code dat.api} is what a consumer programs against: one interface per DAT object
 * ({@link dat.api.DatIa}, {@link dat.api.DatEp}, {@link dat.api.DatSrq}, ...), attribute records with DAT
 * field names, return codes and constants. {@code dat.spi} is what a provider implements to be found by
 * {@link java.util.ServiceLoader}.
 */
module dat.api {
    exports dat.api;
    exports dat.spi;
}
