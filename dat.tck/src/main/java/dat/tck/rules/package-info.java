// SPDX-License-Identifier: Apache-2.0
/**
 * The rules: one test method per rule of the man pages, named {@code required_} or {@code optional_}, then the DAT
 * call, then what it checks ({@code required_ep_post_send_messageSizeLimitHonoured}); a class per call or family.
 * {@code docs/dat-calls.md} lists which class holds a call's rules.
 */
package dat.tck.rules;
