import { Injectable } from '@nestjs/common';
import { UserPrincipal } from '../auth/principal';
import { API_KEY_PREFIX, generateSecret, hashSecret, SHOWN_PREFIX_LENGTH } from '../auth/secrets';
import { DomainError } from '../common/errors/domain-error';
import { isUniqueViolation } from '../common/errors/pg-errors';
import { ApiKeyDto, CreatedApiKeyDto, CreatedUserDto, UserDto } from './dto/user.dto';
import { UserRole } from '../access';
import { toApiKeyDto, toUserDto } from './user.mapper';
import { NewKey, UsersRepository } from './users.repository';

export function newApiKey(): { secret: string; key: NewKey } {
  const secret = generateSecret(API_KEY_PREFIX);
  return { secret, key: { keyHash: hashSecret(secret), prefix: secret.slice(0, SHOWN_PREFIX_LENGTH) } };
}

@Injectable()
export class UsersService {
  constructor(private readonly users: UsersRepository) {}

  async create(caller: UserPrincipal, userName: string, role: UserRole = 'user'): Promise<CreatedUserDto> {
    if (!caller.isAdmin) throw DomainError.forbidden('Only admins create users');
    const { secret, key } = newApiKey();
    try {
      const { user } = await this.users.createWithKey(userName, role, key);
      return { ...toUserDto(user), api_key: secret };
    } catch (err) {
      if (isUniqueViolation(err, 'users_user_name_key')) {
        throw new DomainError('USER_EXISTS', `User ${userName} already exists`);
      }
      throw err;
    }
  }

  async me(caller: UserPrincipal): Promise<UserDto> {
    return { id: caller.userId, user_name: caller.userName, role: caller.isAdmin ? 'admin' : 'user' };
  }

  async createKey(caller: UserPrincipal, userId: number): Promise<CreatedApiKeyDto> {
    await this.requireKeyOwner(caller, userId);
    const { secret, key } = newApiKey();
    const saved = await this.users.addKey(userId, key);
    return { id: saved.id, api_key: secret };
  }

  async listKeys(caller: UserPrincipal, userId: number): Promise<{ items: ApiKeyDto[] }> {
    await this.requireKeyOwner(caller, userId);
    const keys = await this.users.listActiveKeys(userId);
    return { items: keys.map(toApiKeyDto) };
  }

  async revokeKey(caller: UserPrincipal, userId: number, keyId: number): Promise<void> {
    await this.requireKeyOwner(caller, userId);
    if (!(await this.users.revokeKey(userId, keyId))) throw DomainError.notFound('API key not found');
  }

  /** Keys are their owner's (and admins'): anyone else is told the user does not exist. */
  private async requireKeyOwner(caller: UserPrincipal, userId: number): Promise<void> {
    if (caller.userId === userId) return;
    if (!caller.isAdmin || !(await this.users.findById(userId))) throw DomainError.notFound('User not found');
  }
}
