/** RFC 9110 `token`: what an HTTP method and a header name are made of. No imports: the inspector page uses it too. */
export const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
