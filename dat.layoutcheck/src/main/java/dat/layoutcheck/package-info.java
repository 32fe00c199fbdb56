// SPDX-License-Identifier: Apache-2.0
/**
 * Test support for the native providers: their {@code java.lang.foreign} bindings checked against the C compiler and
 * the library's headers ({@link dat.layoutcheck.LayoutCheck}).
 */
package dat.layoutcheck;
