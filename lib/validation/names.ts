/**
 * Kubernetes name syntax (k8s.io/apimachinery/pkg/util/validation): each function returns why the value is
 * invalid, or undefined when it is valid.
 */

import { DNS1035_LABEL, DNS1123_LABEL, DNS1123_SUBDOMAIN } from '../shared/names';

const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const IANA_SVC_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

function tooLong(value: string, max: number): string | undefined {
  return value.length > max ? `is ${value.length} characters long, more than the ${max} allowed` : undefined;
}

/** RFC 1123 label: lower case letters, digits and '-', starting and ending with a letter or digit, at most 63. */
export function dns1123LabelProblem(value: string, max = 63): string | undefined {
  if (value === '') return 'is empty';
  return tooLong(value, max) ?? (DNS1123_LABEL.test(value) ? undefined
    : "must consist of lower case letters, digits and '-', and start and end with a letter or digit (an RFC 1123 label)");
}

/** RFC 1035 label: like an RFC 1123 label, but starting with a letter. */
export function dns1035LabelProblem(value: string, max = 63): string | undefined {
  if (value === '') return 'is empty';
  return tooLong(value, max) ?? (DNS1035_LABEL.test(value) ? undefined
    : "must consist of lower case letters, digits and '-', start with a letter and end with a letter or digit (an RFC 1035 label)");
}

/** RFC 1123 subdomain: dot-separated RFC 1123 labels, at most 253 characters. */
export function dns1123SubdomainProblem(value: string, max = 253): string | undefined {
  if (value === '') return 'is empty';
  return tooLong(value, max) ?? (DNS1123_SUBDOMAIN.test(value) ? undefined
    : "must consist of lower case letters, digits, '-' and '.', and start and end with a letter or digit (an RFC 1123 subdomain)");
}

/** A path segment name (RBAC objects): anything but `.`, `..` or a name containing `/` or `%`. */
export function pathSegmentProblem(value: string): string | undefined {
  if (value === '') return 'is empty';
  if (value === '.' || value === '..') return `may not be '${value}'`;
  if (/[/%]/.test(value)) return "may not contain '/' or '%'";
  return undefined;
}

/** A label or annotation key: an optional DNS subdomain prefix and `/`, then a name of at most 63 characters. */
export function qualifiedNameProblem(key: string): string | undefined {
  const parts = key.split('/');
  if (parts.length > 2) return "may contain at most one '/'";
  const name = parts[parts.length - 1];
  if (parts.length === 2) {
    const prefixProblem = dns1123SubdomainProblem(parts[0]);
    if (prefixProblem) return `has a prefix that ${prefixProblem}`;
  }
  if (name === '') return 'has an empty name part';
  if (name.length > 63) return `has a name part of ${name.length} characters, more than the 63 allowed`;
  if (!QUALIFIED_NAME.test(name)) {
    return "must have a name part of letters, digits, '-', '_' and '.', starting and ending with a letter or digit";
  }
  return undefined;
}

/** A label value: empty, or at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit. */
export function labelValueProblem(value: string): string | undefined {
  return tooLong(value, 63) ?? (LABEL_VALUE.test(value) ? undefined
    : "must be empty or consist of letters, digits, '-', '_' and '.', starting and ending with a letter or digit");
}

/** An IANA service name (container port names): at most 15 characters, with at least one letter. */
export function ianaServiceNameProblem(value: string): string | undefined {
  if (value === '') return 'is empty';
  if (value.length > 15) return `is ${value.length} characters long, more than the 15 an IANA service name allows`;
  if (!IANA_SVC_NAME.test(value)) return "must consist of lower case letters, digits and '-', starting and ending with a letter or digit";
  if (value.includes('--')) return "must not contain '--'";
  if (!/[a-z]/.test(value)) return 'must contain at least one letter';
  return undefined;
}
