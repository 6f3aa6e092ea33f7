import { isValidPhoneNumber, parsePhoneNumberFromString } from 'libphonenumber-js/max';
for (const n of ['+79123456789','+3546111234','+639171234567','+5511987654321','+2348031234567','+85291234567']) console.log(n, isValidPhoneNumber(n), parsePhoneNumberFromString(n)?.country);
