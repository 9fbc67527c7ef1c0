import 'sm-crypto';

/** What sm-crypto exports beyond its published type declarations. */
declare module 'sm-crypto' {
  namespace sm2 {
    /** With a hex string and radix: the key pair of that number reduced into [1, n-1]. */
    function generateKeyPairHex(a: string, b: number): KeyPairHex;
    function verifyPublicKey(publicKeyHex: string): boolean;
    function getPublicKeyFromPrivateKey(privateKeyHex: string): string;
  }
}
