/** The search attribute keys live with the workflow contracts (workflows/search-attributes.contract.ts). */
export { SA, SEARCH_ATTRIBUTE_NAMES } from '../../workflows/search-attributes.contract';
